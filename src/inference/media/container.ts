/** Container families the service tells apart (SPEC §4.6 allows mp3, wav, mp4 and mov inputs). */
export type MediaContainer = 'mp3' | 'wav' | 'mp4' | 'mov' | 'other';

/** What {@link classifyContainer} looks at, all from ffprobe's output. */
export interface ContainerEvidence {
  /** ffprobe's `format_name` split on commas. */
  formatNames: readonly string[];
  /** The `major_brand` tag of ISO-BMFF files (`isom`, `qt  `, `M4A `, ...). */
  majorBrand?: string;
  /** The `compatible_brands` tag, brands concatenated (`isomiso2avc1mp41`). */
  compatibleBrands?: string;
  /** Codec of the first audio stream, if any. */
  audioCodec?: string;
}

/** Major brands of the MPEG-4 family (ISO/IEC 14496-12/14, Apple's M4x, Adobe's F4x, DASH). */
const MP4_BRANDS = new Set([
  'isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71', 'avc1',
  'M4A', 'M4B', 'M4P', 'M4V', 'M4VH', 'M4VP', 'F4V', 'F4A', 'F4P', 'dash', 'msnv', 'ndas', 'mmp4',
]);

/**
 * Decides the container from what ffprobe saw, never from the file name. ffprobe names one demuxer for the whole
 * ISO-BMFF family (`mov,mp4,m4a,3gp,3g2,mj2`), so mp4 and mov are told apart by the major brand: `qt  ` (or no
 * `ftyp` box at all, as in old QuickTime files) is mov; an MPEG-4 brand is mp4; 3GPP and Motion JPEG 2000 are other.
 */
export function classifyContainer(evidence: ContainerEvidence): MediaContainer {
  const names = new Set(evidence.formatNames);
  if (names.has('wav')) return 'wav';
  if (names.has('mp3')) return evidence.audioCodec === 'mp3' ? 'mp3' : 'other'; // the demuxer also reads mp1/mp2
  if (!names.has('mov') || !names.has('mp4')) return 'other';
  const major = evidence.majorBrand?.trim();
  if (major === undefined || major === '') return 'mov';
  if (major === 'qt') return 'mov';
  if (MP4_BRANDS.has(major)) return 'mp4';
  if (/^(3g|mj2|mjp2)/.test(major)) return 'other';
  const compatible = evidence.compatibleBrands ?? '';
  if (/isom|iso[2-9]|mp4[12]/.test(compatible)) return 'mp4';
  return compatible.includes('qt') ? 'mov' : 'other';
}
