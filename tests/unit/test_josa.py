"""Tests for bipub.render.josa: Korean particles chosen by the preceding word's final consonant."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bipub.render.josa import SUPPORTED_FORMS, has_final_consonant, josa

# (form after a final consonant, form after a vowel); 으로/로 also takes 로 after ㄹ.
PAIRS = [
    ("은", "는"),
    ("이", "가"),
    ("을", "를"),
    ("과", "와"),
    ("이나", "나"),
    ("이라", "라"),
    ("으로", "로"),
]
ALL_FORMS = [f"{a}/{b}" for a, b in PAIRS] + [f"{b}/{a}" for a, b in PAIRS]


def particle(word: str, forms: str) -> str:
    result = josa(word, forms)
    assert result.startswith(word)
    return result[len(word) :]


# --- the examples from the specification -------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "forms", "expected"),
    [
        ("서버", "을/를", "서버를"),
        ("파일", "으로/로", "파일로"),
        ("vLLM", "은/는", "vLLM은"),
        ("GPU", "이/가", "GPU가"),
        ("8", "이/가", "8이"),
        ('"서버"', "을/를", '"서버"를'),
        ("KV 캐시)", "은/는", "KV 캐시)는"),
        ("Python", "은/는", "Python은"),
        ("Docker", "은/는", "Docker는"),
        ("cache", "은/는", "cache는"),
        ("Go", "은/는", "Go는"),
        ("Rust", "은/는", "Rust는"),
    ],
)
def test_specification_examples(word: str, forms: str, expected: str) -> None:
    assert josa(word, forms) == expected


# --- every form, both orders -------------------------------------------------------------------

# 책 ends in ㄱ, 서버 in a vowel, 길 in ㄹ.
EXPECTED_BY_FORM = {
    "은/는": ("은", "는", "은"),
    "이/가": ("이", "가", "이"),
    "을/를": ("을", "를", "을"),
    "과/와": ("과", "와", "과"),
    "이나/나": ("이나", "나", "이나"),
    "이라/라": ("이라", "라", "이라"),
    "으로/로": ("으로", "로", "로"),
}


@pytest.mark.parametrize("forms", list(EXPECTED_BY_FORM))
@pytest.mark.parametrize("reverse", [False, True], ids=["canonical", "reversed"])
def test_every_form_in_both_orders(forms: str, reverse: bool) -> None:
    after_consonant, after_vowel, after_rieul = EXPECTED_BY_FORM[forms]
    if reverse:
        first, second = forms.split("/")
        forms = f"{second}/{first}"
    assert josa("책", forms) == "책" + after_consonant
    assert josa("서버", forms) == "서버" + after_vowel
    assert josa("길", forms) == "길" + after_rieul


def test_supported_forms_constant() -> None:
    assert set(SUPPORTED_FORMS) == set(EXPECTED_BY_FORM)


def test_whitespace_around_the_halves_is_tolerated() -> None:
    assert josa("서버", " 을 / 를 ") == "서버를"


# --- the ㄹ rule of 으로/로 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("파일", "로"),  # ㄹ
        ("서울", "로"),  # ㄹ
        ("연필", "로"),  # ㄹ
        ("서버", "로"),  # vowel
        ("집", "으로"),  # ㅂ
        ("책", "으로"),  # ㄱ
        ("닭", "으로"),  # ㄺ is not ㄹ
        ("삶", "으로"),  # ㄻ is not ㄹ
        ("여덟", "으로"),  # ㄼ is not ㄹ
        ("밖", "으로"),  # ㄲ
    ],
)
def test_euro_ro_rule(word: str, expected: str) -> None:
    assert particle(word, "으로/로") == expected


@pytest.mark.parametrize("word", ["파일", "서울", "길"])
def test_rieul_counts_as_a_consonant_for_the_other_forms(word: str) -> None:
    assert particle(word, "은/는") == "은"
    assert particle(word, "을/를") == "을"
    assert particle(word, "과/와") == "과"


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("서버", (False, False)),
        ("책", (True, False)),
        ("길", (True, True)),
        ("닭", (True, False)),
        ("강", (True, False)),
        ("URL", (True, True)),
        ("vLLM", (True, False)),
        ("GPU", (False, False)),
        ("8", (True, True)),
        ("0", (True, False)),
    ],
)
def test_has_final_consonant(word: str, expected: tuple[bool, bool]) -> None:
    assert has_final_consonant(word) == expected


# --- digits and numbers ------------------------------------------------------------------------

# Sino-Korean digit, particle for 이/가, particle for 으로/로
DIGITS = {
    "0": ("영", "이", "으로"),
    "1": ("일", "이", "로"),
    "2": ("이", "가", "로"),
    "3": ("삼", "이", "으로"),
    "4": ("사", "가", "로"),
    "5": ("오", "가", "로"),
    "6": ("육", "이", "으로"),
    "7": ("칠", "이", "로"),
    "8": ("팔", "이", "로"),
    "9": ("구", "가", "로"),
}


@pytest.mark.parametrize("digit", list(DIGITS))
def test_digits(digit: str) -> None:
    reading, i_ga, euro_ro = DIGITS[digit]
    assert josa(digit, "이/가") == digit + i_ga
    assert josa(digit, "으로/로") == digit + euro_ro
    assert has_final_consonant(digit) == has_final_consonant(reading)


@pytest.mark.parametrize(
    ("number", "reading", "i_ga", "euro_ro"),
    [
        ("10", "십", "이", "으로"),
        ("20", "이십", "이", "으로"),
        ("100", "백", "이", "으로"),
        ("300", "삼백", "이", "으로"),
        ("1000", "천", "이", "으로"),
        ("10000", "만", "이", "으로"),
        ("100000", "십만", "이", "으로"),
        ("100000000", "억", "이", "으로"),
        ("1000000000000", "조", "가", "로"),
        ("10000000000000000", "경", "이", "으로"),
        ("11", "십일", "이", "로"),
        ("12", "십이", "가", "로"),
        ("110", "백십", "이", "으로"),
        ("2026", "이천이십육", "이", "으로"),
        ("4090", "사천구십", "이", "으로"),
        ("007", "칠", "이", "로"),
        ("00", "영", "이", "으로"),
    ],
)
def test_numbers(number: str, reading: str, i_ga: str, euro_ro: str) -> None:
    assert josa(number, "이/가") == number + i_ga
    assert josa(number, "으로/로") == number + euro_ro
    assert has_final_consonant(number) == has_final_consonant(reading[-1])


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("1,000", "이"),  # 천
        ("10,000", "이"),  # 만
        ("1,2", "가"),  # not a grouped number: read the 2
        ("3.5", "가"),  # 삼점오
        ("2.0", "이"),  # 이점영
        ("Python 3.12", "가"),  # 십이
        ("H100", "이"),  # 에이치백
        ("RTX 4090", "이"),  # 사천구십
        ("v2", "가"),
        ("GPT-4", "가"),
        ("２", "가"),  # fullwidth digit
    ],
)
def test_digits_inside_words(word: str, expected: str) -> None:
    assert particle(word, "이/가") == expected


def sino_korean(n: int) -> str:
    """Independent oracle: the full Sino-Korean reading of n, e.g. 12345 → 만이천삼백사십오."""
    if n == 0:
        return "영"
    digits = "영일이삼사오육칠팔구"
    small = ["", "십", "백", "천"]
    large = ["", "만", "억", "조", "경"]
    parts: list[str] = []
    group = 0
    while n:
        n, chunk = divmod(n, 10000)
        if chunk:
            text = ""
            for place in (3, 2, 1, 0):
                d = chunk // 10**place % 10
                if d:
                    text += ("" if d == 1 and place else digits[d]) + small[place]
            if group == 1 and text == "일":
                text = ""  # 만, not 일만
            parts.append(text + large[group])
        group += 1
    return "".join(reversed(parts))


def test_oracle_sanity() -> None:
    assert sino_korean(12345) == "만이천삼백사십오"
    assert sino_korean(300) == "삼백"
    assert sino_korean(100000000) == "일억"
    assert sino_korean(10010) == "만십"


@given(st.integers(min_value=0, max_value=10**20 - 1))
def test_numbers_agree_with_their_full_korean_reading(n: int) -> None:
    expected = has_final_consonant(sino_korean(n))
    assert has_final_consonant(str(n)) == expected
    assert has_final_consonant(f"{n:,}") == expected


# --- Latin letters: acronyms and letter names --------------------------------------------------

LETTER_NAMES = {
    "A": "에이",
    "B": "비",
    "C": "씨",
    "D": "디",
    "E": "이",
    "F": "에프",
    "G": "지",
    "H": "에이치",
    "I": "아이",
    "J": "제이",
    "K": "케이",
    "L": "엘",
    "M": "엠",
    "N": "엔",
    "O": "오",
    "P": "피",
    "Q": "큐",
    "R": "알",
    "S": "에스",
    "T": "티",
    "U": "유",
    "V": "브이",
    "W": "더블유",
    "X": "엑스",
    "Y": "와이",
    "Z": "지",
}


@pytest.mark.parametrize("letter", list(LETTER_NAMES))
def test_capital_letters_read_by_their_names(letter: str) -> None:
    expected = has_final_consonant(LETTER_NAMES[letter])
    assert has_final_consonant(letter) == expected
    assert has_final_consonant("X" + letter) == expected  # acronym
    assert has_final_consonant("abc" + letter) == expected  # ends in a capital
    assert has_final_consonant(letter.lower()) == expected  # a single letter


def test_only_l_m_n_r_end_in_a_consonant() -> None:
    consonant = {letter for letter in LETTER_NAMES if has_final_consonant(letter)[0]}
    rieul = {letter for letter in LETTER_NAMES if has_final_consonant(letter)[1]}
    assert consonant == {"L", "M", "N", "R"}
    assert rieul == {"L", "R"}


@pytest.mark.parametrize(
    ("word", "i_ga", "euro_ro"),
    [
        ("GPU", "가", "로"),
        ("API", "가", "로"),
        ("URL", "이", "로"),
        ("SQL", "이", "로"),
        ("HTML", "이", "로"),
        ("CPU", "가", "로"),
        ("LLM", "이", "으로"),
        ("KV", "가", "로"),
        ("JSON", "이", "으로"),
        ("PDF", "가", "로"),
        ("AWS", "가", "로"),
        ("vLLM", "이", "으로"),
        ("macOS", "가", "로"),
        ("MySQL", "이", "로"),
        ("ChatGPT", "가", "로"),
        ("ＧＰＵ", "가", "로"),  # fullwidth
    ],
)
def test_acronyms(word: str, i_ga: str, euro_ro: str) -> None:
    assert particle(word, "이/가") == i_ga
    assert particle(word, "으로/로") == euro_ro


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("npm", "은"),  # 엔피엠
        ("ssh", "는"),  # 에스에스에이치
        ("dbt", "는"),  # 디비티
        ("url", "은"),  # 유알엘
        ("x", "는"),  # 엑스
        ("n", "은"),  # 엔
        ("k8s", "는"),  # 케이에이트에스: the run is "s"
        ("i18n", "은"),  # the run is "n"
    ],
)
def test_lowercase_letters_without_vowels_read_as_letters(word: str, expected: str) -> None:
    assert particle(word, "은/는") == expected


# --- other Latin words: the English-pronunciation heuristic ------------------------------------

# (word, Korean reading it approximates, particle for 은/는, particle for 으로/로)
ENGLISH_WORDS = [
    # -m, -mb: ㅁ
    ("stream", "스트림", "은", "으로"),
    ("Chromium", "크로미엄", "은", "으로"),
    ("bomb", "봄", "은", "으로"),
    # -n, -ng: ㄴ, ㅇ
    ("Python", "파이썬", "은", "으로"),
    ("Kotlin", "코틀린", "은", "으로"),
    ("token", "토큰", "은", "으로"),
    ("string", "스트링", "은", "으로"),
    # -l: ㄹ
    ("kernel", "커널", "은", "로"),
    ("Perl", "펄", "은", "로"),
    ("tool", "툴", "은", "로"),
    # -le: ㄹ
    ("Google", "구글", "은", "로"),
    ("file", "파일", "은", "로"),
    ("table", "테이블", "은", "로"),
    # -ne, -me: ㄴ, ㅁ
    ("engine", "엔진", "은", "으로"),
    ("phone", "폰", "은", "으로"),
    ("time", "타임", "은", "으로"),
    ("Chrome", "크롬", "은", "으로"),
    # other -e: vowel
    ("cache", "캐시", "는", "로"),
    ("node", "노드", "는", "로"),
    ("Vue", "뷰", "는", "로"),
    ("core", "코어", "는", "로"),
    ("Kube", "큐브", "는", "로"),
    ("me", "미", "는", "로"),
    # -r: vowel
    ("Docker", "도커", "는", "로"),
    ("server", "서버", "는", "로"),
    ("Jupyter", "주피터", "는", "로"),
    # vowel letters, -y, -w
    ("Go", "고", "는", "로"),
    ("Kafka", "카프카", "는", "로"),
    ("Ruby", "루비", "는", "로"),
    ("TensorFlow", "텐서플로", "는", "로"),
    # fricatives and the like
    ("Redis", "레디스", "는", "로"),
    ("Linux", "리눅스", "는", "로"),
    ("PyTorch", "파이토치", "는", "로"),
    ("bash", "배시", "는", "로"),
    ("graph", "그래프", "는", "로"),
    ("ruff", "러프", "는", "로"),
    # voiced -d, -g
    ("pod", "파드", "는", "로"),
    ("debug", "디버그", "는", "로"),
    ("build", "빌드", "는", "로"),
    # stops after a consonant letter: vowel
    ("Rust", "러스트", "는", "로"),
    ("Swift", "스위프트", "는", "로"),
    ("React", "리액트", "는", "로"),
    ("prompt", "프롬프트", "는", "로"),
    ("Flask", "플라스크", "는", "로"),
    ("sync", "싱크", "는", "로"),
    ("help", "헬프", "는", "로"),
    # stops after one vowel letter, and -ck: 받침
    ("Git", "깃", "은", "으로"),
    ("commit", "커밋", "은", "으로"),
    ("Copilot", "코파일럿", "은", "으로"),
    ("Mac", "맥", "은", "으로"),
    ("Anthropic", "앤트로픽", "은", "으로"),
    ("pip", "핍", "은", "으로"),
    ("app", "앱", "은", "으로"),
    ("web", "웹", "은", "으로"),
    ("GitLab", "깃랩", "은", "으로"),
    ("Slack", "슬랙", "은", "으로"),
    ("webpack", "웹팩", "은", "으로"),
    ("quit", "큇", "은", "으로"),
    # stops after a vowel pair: vowel, with established exceptions
    ("boot", "부트", "는", "로"),
    ("loop", "루프", "는", "로"),
    ("sheet", "시트", "는", "로"),
    ("notebook", "노트북", "은", "으로"),
    ("deep", "딥", "은", "으로"),
    ("layout", "레이아웃", "은", "으로"),
    ("group", "그룹", "은", "으로"),
    # listed exceptions
    ("GitHub", "깃허브", "는", "로"),
    ("check", "체크", "는", "로"),
    ("healthcheck", "헬스체크", "는", "로"),
    ("prototype", "프로토타입", "은", "으로"),
    ("template", "템플릿", "은", "으로"),
    ("bit", "비트", "는", "로"),
    ("rabbit", "래빗", "은", "으로"),  # "bit" is a whole-word exception only
    # accented letters count as their base letter
    ("café", "카페", "는", "로"),
    ("Pokémon", "포켓몬", "은", "으로"),
]


@pytest.mark.parametrize(
    ("word", "reading", "eun_neun", "euro_ro"), ENGLISH_WORDS, ids=[w[0] for w in ENGLISH_WORDS]
)
def test_english_words(word: str, reading: str, eun_neun: str, euro_ro: str) -> None:
    assert particle(word, "은/는") == eun_neun
    assert particle(word, "으로/로") == euro_ro
    assert has_final_consonant(word) == has_final_consonant(reading)


# --- what is skipped and what is pronounced ----------------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ('"서버"', '"서버"를'),
        ("'서버'", "'서버'를"),
        ("“서버”", "“서버”를"),
        ("「서버」", "「서버」를"),
        ("《책》", "《책》을"),
        ("(파일)", "(파일)을"),
        ("[GPU]", "[GPU]를"),
        ("서버.", "서버.를"),
        ("서버 ", "서버 를"),
        ("서버\n", "서버\n를"),
        ("서버 🚀", "서버 🚀를"),
        ("Python™", "Python™을"),
        ("KV 캐시)", "KV 캐시)를"),
        ("책 (서버)", "책 (서버)를"),
        ("서버 책", "서버 책을"),
        ("50%", "50%를"),  # 퍼센트
        ("C#", "C#을"),  # 씨샵
        ("C++", "C++를"),  # + is skipped: 씨
    ],
)
def test_trailing_characters(word: str, expected: str) -> None:
    assert josa(word, "을/를") == expected


def test_decomposed_hangul_is_read_and_returned_unchanged() -> None:
    word = unicodedata.normalize("NFD", "서버")
    assert len(word) > 2
    assert josa(word, "을/를") == word + "를"
    assert josa(unicodedata.normalize("NFD", "책"), "을/를").endswith("을")


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["", " ", "...", "!?", "🚀", "()", "—"])
def test_nothing_pronounceable_raises(word: str) -> None:
    with pytest.raises(ValueError) as info:
        josa(word, "을/를")
    if word:
        assert repr(word) in str(info.value)


@pytest.mark.parametrize("word", ["漢字", "서버 漢", "ㅋㅋ", "かな", "α", "x²", "٣"])
def test_unreadable_last_character_raises(word: str) -> None:
    with pytest.raises(ValueError, match="cannot tell") as info:
        josa(word, "은/는")
    assert repr(word) in str(info.value)


@pytest.mark.parametrize(
    "forms", ["", "을", "을/", "/를", "을/를/이", "에/에서", "은/를", "을|를", "(을)를"]
)
def test_unknown_forms_raise_and_list_the_supported_ones(forms: str) -> None:
    with pytest.raises(ValueError, match="unsupported particle forms") as info:
        josa("서버", forms)
    for supported in EXPECTED_BY_FORM:
        assert supported in str(info.value)


def test_forms_are_checked_even_for_an_unreadable_word() -> None:
    with pytest.raises(ValueError, match="unsupported particle forms"):
        josa("", "에/에서")


def test_non_string_word_raises_type_error() -> None:
    with pytest.raises(TypeError):
        josa(8, "이/가")  # type: ignore[arg-type]


def test_works_with_markup_as_a_jinja_filter() -> None:
    jinja2 = pytest.importorskip("jinja2")
    env = jinja2.Environment(autoescape=True)
    env.filters["josa"] = josa
    template = env.from_string("{{ '서버'|josa('을/를') }} {{ name|josa('은/는') }}")
    assert template.render(name="<vLLM>") == "서버를 &lt;vLLM&gt;은"


# --- properties --------------------------------------------------------------------------------

hangul_syllables = st.integers(min_value=0xAC00, max_value=0xD7A3).map(chr)


def final_jamo(syllable: str) -> str | None:
    """Independent oracle: the trailing consonant jamo of a syllable, via Unicode decomposition."""
    jamo = unicodedata.normalize("NFD", syllable)
    return jamo[2] if len(jamo) == 3 else None


@given(syllable=hangul_syllables, pair=st.sampled_from(PAIRS))
def test_any_syllable_gets_one_of_the_two_particles(syllable: str, pair: tuple[str, str]) -> None:
    after_consonant, after_vowel = pair
    result = josa(syllable, f"{after_consonant}/{after_vowel}")
    assert result.startswith(syllable)
    assert result[len(syllable) :] in pair
    final = final_jamo(syllable)
    if pair == ("으로", "로"):
        expected = after_vowel if final in (None, "\u11af") else after_consonant  # ᆯ is ㄹ
    else:
        expected = after_vowel if final is None else after_consonant
    assert result == syllable + expected


@given(syllable=hangul_syllables)
def test_has_final_consonant_matches_the_decomposition(syllable: str) -> None:
    final = final_jamo(syllable)
    assert has_final_consonant(syllable) == (final is not None, final == "\u11af")


readable_words = st.builds(
    lambda body, last, tail: body + last + tail,
    st.text(max_size=8),
    st.one_of(
        hangul_syllables,
        st.sampled_from("ABCXYZabcklmnoprstxyz0123456789"),
    ),
    st.text(alphabet=" .,!?\"')]}」』”’…", max_size=4),
)


@given(word=readable_words, pair=st.sampled_from(PAIRS))
def test_order_of_the_forms_does_not_matter(word: str, pair: tuple[str, str]) -> None:
    first, second = pair
    try:
        expected = josa(word, f"{first}/{second}")
    except ValueError:
        with pytest.raises(ValueError):
            josa(word, f"{second}/{first}")
        return
    assert josa(word, f"{second}/{first}") == expected
    assert expected.startswith(word)
    assert expected[len(word) :] in pair


@given(
    prefix=st.text(max_size=10),
    syllable=hangul_syllables,
    closing=st.text(alphabet=" .,;:!?\"'()[]{}「」『』“”‘’…—", max_size=5),
)
def test_only_the_last_pronounced_syllable_matters(
    prefix: str, syllable: str, closing: str
) -> None:
    assert has_final_consonant(prefix + syllable + closing) == has_final_consonant(syllable)
