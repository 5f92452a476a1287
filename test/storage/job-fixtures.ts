/** The job fixtures moved to src/testing (they ship with the JobStore suite); tests written before the move import them here. */
export { at, makeJob, uids } from '../../src/testing/job-fixtures.js';
