"""Pseudo-sentences per language: random syllables in each language's own script and phonotactics.

espeak-ng's letter-to-sound rules turn them into that language's phonemes, so the phoneme
inventory, prosody and timing follow the language while the text needs no downloaded corpus.
Digits are mixed in now and then: espeak reads them as real number words.
"""
import random

# language (espeak voice) -> (onsets, vowels, codas); space separated graphemes.
LATIN = {
    "en-us": ("b c d f g h j k l m n p r s t v w y z th sh ch wh br pl st tr gr", "a e i o u ee oo ay ou ea oi", "n t s r l m ng st ck d"),
    "en": ("b c d f g h j k l m n p r s t v w y z th sh ch br pl st tr fl", "a e i o u ee oo ay ou ea ow", "n t s r l m ng st ck d"),
    "de": ("b d f g h j k l m n p r s t w z sch ch pf st sp kr br", "a e i o u ä ö ü ei au eu ie", "n t s r l m ch ng st"),
    "fr": ("b c d f g j l m n p r s t v ch qu gr pl br", "a e i o u é è ou au oi on an in eu", "r s l t n"),
    "es": ("b c d f g j l m n p r s t v ll ch qu br tr pl", "a e i o u ue ie", "n s r l"),
    "it": ("b c d f g l m n p r s t v z gn ch sc tr pr", "a e i o u", "n r l"),
    "pt": ("b c d f g j l m n p r s t v ch lh nh qu", "a e i o u ã õ é ó ê", "s r l m"),
    "nl": ("b d f g h j k l m n p r s t v w z sch", "a e i o u aa ee oo ij ui oe eu", "n t s r l k"),
    "pl": ("b c d f g h j k l m n p r s t w z ł ż ś sz cz rz dz", "a e i o u y ą ę ó", "n k s ć ł"),
    "cs": ("b c č d f g h j k l m n p r ř s š t v z ž ch", "a e i o u y á é í ů", "n k s l t"),
    "sv": ("b d f g h j k l m n p r s t v sk st", "a e i o u y å ä ö", "n t s r l k"),
    "fi": ("h j k l m n p r s t v", "a e i o u y ä ö aa ii uu", "n t s l"),
    "tr": ("b c ç d f g ğ h j k l m n p r s ş t v y z", "a e ı i o ö u ü", "n r l k m"),
    "id": ("b c d g h j k l m n p r s t w y ng ny", "a e i o u", "n ng k r t"),
    "sw": ("b ch d f g h j k l m n p s t v w y z mb nd ng ny", "a e i o u", ""),
    "vi": ("b c d đ g h k l m n ph qu r s t th tr v x ch nh ng", "a á à ả ã ạ ă â e é ê ế i í o ó ô ồ ơ ờ u ú ư ữ y", "n ng c t m"),
    "ro": ("b c d f g h j l m n p r s ș t ț v z", "a e i o u ă â î", "n r s t"),
    "hu": ("b c d f g h j k l m n p r s t v z sz cs zs gy ny ty", "a e i o u á é í ó ö ő ü", "n t s k l"),
    "da": ("b d f g h j k l m n p r s t v", "a e i o u y æ ø å", "n t s r l"),
    "hr": ("b c č ć d f g h j k l m n p r s š t v z ž", "a e i o u", "n k s l t"),
    "ca": ("b c d f g j l m n p r s t v x ll ny qu", "a e i o u à è é ò ó", "n s r l t"),
    "eu": ("b d f g h j k l m n p r s t x z tz ts", "a e i o u", "n r s k"),
    "ms": ("b c d g h j k l m n p r s t w y ng", "a e i o u", "n ng k t"),
    "et": ("h j k l m n p r s t v", "a e i o u õ ä ö ü", "n t s l"),
    "cy": ("b c d f ff g h l ll m n p r s t th dd ch", "a e i o u w y", "n r l s"),
}

CYRILLIC = {
    "ru": ("б в г д ж з к л м н п р с т ф х ц ч ш щ", "а е и о у ы э ю я", "н т с р л к й"),
    "uk": ("б в г ґ д ж з к л м н п р с т ф х ц ч ш", "а е и і ї о у ю я є", "н т с р л к й"),
    "bg": ("б в г д ж з к л м н п р с т ф х ц ч ш щ", "а е и о у ъ ю я", "н т с р л к"),
}
OTHER = {
    "el": ("β γ δ ζ θ κ λ μ ν ξ π ρ σ τ φ χ ψ μπ ντ", "α ε η ι ο υ ω ά έ ί ό ύ ώ ου αι ει", "ς ν"),
    "ka": ("ბ გ დ ვ ზ თ კ ლ მ ნ პ ჟ რ ს ტ ფ ქ ღ ყ შ ჩ ც ძ წ ჭ ხ ჯ ჰ", "ა ე ი ო უ", "ნ ს რ ლ"),
}
ABUGIDA = {  # consonant letters, vowel signs ('-' = inherent vowel), optional final marks
    "hi": ("क ख ग घ च छ ज झ ट ठ ड ढ त थ द ध न प फ ब भ म य र ल व श स ह", "- ा ि ी ु ू े ै ो ौ", "ं"),
    "bn": ("ক খ গ ঘ চ ছ জ ঝ ট ঠ ড ঢ ত থ দ ধ ন প ফ ব ভ ম য র ল শ স হ", "- া ি ী ু ূ ে ৈ ো ৌ", "ং"),
    "ta": ("க ங ச ஞ ட ண த ந ப ம ய ர ல வ ழ ள ற ன", "- ா ி ீ ு ூ ெ ே ை ொ ோ", "ம் ன் ல்"),
    "ar": ("ب ت ث ج ح خ د ذ ر ز س ش ص ض ط ظ ع غ ف ق ك ل م ن ه و ي", "َ ِ ُ َا ِي ُو", "ْ"),
    "he": ("ב ג ד ה ו ז ח ט י כ ל מ נ ס ע פ צ ק ר ש ת", "ַ ֶ ִ ֹ ֻ ָ", "ְ"),
    "fa": ("ب پ ت ج چ خ د ر ز ژ س ش ف ق ک گ ل م ن ه", "ا و ی َ ِ ُ", ""),
}
KANA = "かきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわがぎぐげござじずぜぞだでどばびぶべぼぱぴぷぺぽあいうえおん"
PINYIN_I = "b p m f d t n l g k h j q x zh ch sh r z c s w y".split()
PINYIN_F = "a o e i u ai ei ao ou an en ang eng ong ia ie iao iu ian in ing uo uai ui uan un".split()

LANGUAGES = sorted(list(LATIN) + list(CYRILLIC) + list(OTHER) + list(ABUGIDA) + ["ja", "ko", "cmn-latn-pinyin"])
NO_SPACE_PUNCT = {"ja": ("、", "。", "？")}


def _alpha_word(rng, onsets, vowels, codas):
    n = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
    out = []
    for _ in range(n):
        if rng.random() < 0.8:
            out.append(rng.choice(onsets))
        out.append(rng.choice(vowels))
        if codas and rng.random() < 0.25:
            out.append(rng.choice(codas))
    return "".join(out)


def _abugida_word(rng, cons, signs, finals):
    n = rng.choice([1, 2, 2, 3, 3, 4])
    out = []
    for _ in range(n):
        out.append(rng.choice(cons))
        s = rng.choice(signs)
        if s != "-":
            out.append(s)
        if finals and rng.random() < 0.15:
            out.append(rng.choice(finals))
    return "".join(out)


def word(lang, rng):
    if rng.random() < 0.04:
        return str(rng.choice([rng.randint(0, 20), rng.randint(20, 2000)]))
    if lang in LATIN or lang in CYRILLIC or lang in OTHER:
        o, v, c = (LATIN.get(lang) or CYRILLIC.get(lang) or OTHER[lang])
        return _alpha_word(rng, o.split(), v.split(), c.split())
    if lang in ABUGIDA:
        c, s, f = ABUGIDA[lang]
        return _abugida_word(rng, c.split(), s.split(), f.split())
    if lang == "ja":
        return "".join(rng.choice(KANA) for _ in range(rng.randint(2, 5)))
    if lang == "ko":
        return "".join(chr(0xAC00 + (rng.randrange(19) * 21 + rng.randrange(21)) * 28 +
                           (rng.randrange(28) if rng.random() < 0.3 else 0)) for _ in range(rng.randint(1, 3)))
    if lang == "cmn-latn-pinyin":
        return "".join(rng.choice(PINYIN_I) + rng.choice(PINYIN_F) + str(rng.randint(1, 5))
                       for _ in range(rng.randint(1, 2)))
    raise KeyError(lang)


def sentence(lang, rng, n_words=None):
    n_words = n_words or rng.randint(3, 12)
    words = [word(lang, rng) for _ in range(n_words)]
    sep, end, q = NO_SPACE_PUNCT.get(lang, (",", ".", "?"))
    text = ""
    for i, w in enumerate(words):
        text += w
        if i < n_words - 1:
            text += (sep + " ") if rng.random() < 0.12 else " "
    return text + (q if rng.random() < 0.2 else end)


def utterance(lang, rng):
    """One to three sentences (sentence breaks give pauses)."""
    return " ".join(sentence(lang, rng) for _ in range(rng.choice([1, 1, 2, 2, 3])))


if __name__ == "__main__":
    rng = random.Random(0)
    for lang in LANGUAGES:
        print(lang, "|", utterance(lang, rng))
