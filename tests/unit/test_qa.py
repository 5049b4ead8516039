"""QA checks of a translation against its source: one small pure function per finding code."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.check import qa
from bipub.check.glossary import Glossary, load_glossary
from bipub.check.severity import inline_problems, parse_inline
from bipub.diagnostics import Collector

# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        (
            "처리량은 157 → 382 tokens/s로 2.4배가 됐다.",
            "Throughput went 157 → 382 tokens/s, 2.4×.",
        ),
        ("디코드 처리량 2.4~2.7배", "Decode throughput 2.4–2.7×"),
        ("디코드 처리량 2.4–2.7×", "Decode throughput 2.4×–2.7×"),
        ("일치율 99.08%", "agreement of 99.08%"),
        ("1,900토큰짜리 프롬프트", "a 1900-token prompt"),
        ("적중률이 9%p 올랐습니다", "raised the hit rate by 9 percentage points"),
        ("적중률이 9%p 올랐습니다", "the hit rate rose 9 pp"),
        ("처리량 2배", "a twofold throughput"),
        ("10배 빠르다", "tenfold faster"),
        ("하루 12억 토큰", "1.2 billion tokens a day"),
        ("출력 토큰 100만 개당", "per 1 million output tokens"),
        ("2016년 3월 – 2018년 2월", "Mar 2016 – Feb 2018"),
        ("2026년 1월 22일", "January 22, 2026"),
        ("지난 3년 동안", "over the past three years"),
        # a month named alone; a date written with dots
        ("3월에 출시됐다", "It was released in March."),
        ("3월과 5월 사이", "between March and May"),
        ("2024.3.5 배포", "deployed on March 5, 2024"),
        ("배포일은 2024. 3. 5.이다", "deployed on March 5, 2024"),
        ("2024.03.05 배포", "deployed on 2024-03-05"),
        ("May I add 3 GPUs?", "GPU 3개를 추가해도 될까요?"),
        ("10분 동안 51번", "51 times in ten minutes"),
        ("E2E 지연 p99", "end-to-end p99 latency"),
        ("읽는 양은 1/4로 줄지만", "it reads a quarter of the bytes"),
        ("`max_num_seqs`를 256으로", "`max_num_seqs` to 256"),
        ("```\nx = 3\n```", "```\nx = 3\n```"),
        ("[#10212](https://e.org/pull/10212)를 보세요", "see [#10212](https://e.org/pull/10212)"),
        # Korean numbers with units: one number (each was read as its digits alone)
        ("요청 1만 2천 건", "12,000 requests"),
        ("월 3천만 원", "30 million won a month"),
        ("건당 3천원", "3,000 won each"),
        ("2억 5천만 토큰", "250 million tokens"),
        ("5백만 명이 쓰는", "used by 5,000,000 people"),
        ("1조 2000억 개의 파라미터", "1.2 trillion parameters"),
        ("v2 백업", "a v2 backup"),  # (a word after a space, not a unit)
        # a number word before a counter or unit is read (as the digits it stands for)
        ("두 시간 동안", "for 2 hours"),
        ("두 시간 동안", "for two hours"),
        ("두 시간 동안", "for 120 minutes"),
        ("two hours", "2시간"),
        ("a two-hour window", "2시간 구간"),
        ("세 번 재시도", "retried three times"),
        ("세 번 재시도", "retried 3 times"),
        ("열 개의 요청", "ten requests"),
        ("열 개의 요청", "10 requests"),
        ("열두 시간", "12 hours"),
        ("GPU 두 대", "two GPUs"),
        ("두 사람이", "two people"),
        ("삼 년 동안", "for three years"),
        ("십 분 뒤", "10 minutes later"),
        ("두 배", "twice"),
        ("두 시간 안에", "within a couple of hours"),
        ("이틀 동안", "for two days"),
        ("사흘 뒤", "3 days later"),
        ("열흘 만에", "in ten days"),
        ("두 가지 설정", "both settings"),
        ("두 개의 GPU", "both GPUs"),
        ("1시간마다", "every hour"),
        ("이틀하고 세 시간이 걸렸다", "it took two days and three hours"),
        ("일주일 안에", "within seven days"),
        ("하루 동안", "for 24 hours"),
        ("보름 동안", "for 15 days"),
        ("재작년에", "two years ago"),
        # `한` (one, a) and words of a range, an ordinal or a half stay optional
        ("한 달 뒤", "a month later"),
        ("한 달 뒤", "one month later"),
        ("한번 써 보세요", "give it a try"),
        ("한편 세 번", "meanwhile, three times"),
        ("세 번째 단계", "the third step"),
        ("두세 번", "two or three times"),
        ("한두 시간", "an hour or two"),
        ("2~3시간", "two to three hours"),
        ("두 시간 반", "two and a half hours"),
        ("두 시간 반 동안", "for 2.5 hours"),
        ("2시간 반", "2.5 hours"),
        ("1년 반 동안", "for one and a half years"),
        ("한 시간 반", "1.5 hours"),
        ("한 시간 반", "an hour and a half"),
        ("3년 반", "3.5 years"),
        ("2.5 hours", "2 and a half hours"),
        ("두 번 다시 쓰지 않는다", "never used again"),
        ("한 두 번 써 봤다", "I tried it a few times"),
        ("두 세 시간쯤", "a few hours"),
        ("세 줄 요약", "TL;DR"),
        ("이 두 항목", "these two items"),
        ("Hopper와 Ada 세대(SM 8.9 이상)", "Hopper and Ada GPUs (SM 8.9 and later)"),
        ("열대 지방의 서버", "servers in the tropics"),
        # `이` (this) before a noun is not two
        ("이 시간에", "at this time"),
        ("이 분이", "this person"),
        ("이 단계에서 2번", "twice at this step"),
        # names with a number: compared as names, without case, `-`, `_`, a plural's s
        ("H100 8장", "eight H100s"),
        ("gpt4 모델 3개", "three GPT-4 models"),
        ("v0.6.3에서 고쳐졌다", "fixed in v0.6.3."),
        ("A100과 H100", "H100 and A100"),
        ("FP8 KV 캐시", "an fp8 KV cache"),
    ],
)
def test_numbers_equal_after_normalization(source: str, translation: str) -> None:
    assert qa.check_numbers(source, translation) == []


@pytest.mark.parametrize(
    ("source", "translation", "expected"),
    [
        ("157 → 382 tokens/s", "157 → 328 tokens/s", "382"),
        ("2.4–2.7×", "2.4–2.8×", "2.7×"),
        ("99.08%", "99.8%", "99.08%"),
        ("2.4배 빨라졌다", "2.4% faster", "2.4×"),
        ("서버 3 배포", "4 deployments", "the source has 3 but the translation has 4"),
        ("2배로 늘었다", "grew 3x", "the source has 2× but the translation has 3×"),
        ("12억 토큰", "12 billion tokens", "1200000000"),
        ("p99 1,150 ms", "p99 1,500 ms", "1150"),
        ("요청 1만 2천 건", "12,001 requests", "12000"),
        ("월 3천만 원", "3 million won a month", "30000000"),
        ("2억 5천만 토큰", "205 million tokens", "250000000"),
        ("3월에 출시", "released in April", "the source has 3 but the translation has 4"),
        (
            "2024.3.5에 배포",
            "deployed on March 6, 2024",
            "the source has 5 but the translation has 6",
        ),
        # a number word before a counter or unit is a number (it was never a finding)
        ("두 시간 동안", "for three hours", "the source has 2 but the translation has 3"),
        ("세 번 재시도", "retried four times", "the source has 3 but the translation has 4×"),
        ("열 개의 요청", "eleven requests", "the source has 10 but the translation has 11"),
        ("for two hours", "세 시간 동안", "the source has 2 but the translation has 3"),
        ("삼 년 동안", "for four years", "the source has 3 but the translation has 4"),
        ("GPU 두 대", "three GPUs", "the source has 2 but the translation has 3"),
        ("이틀 동안", "for three days", "the source has 2 but the translation has 3"),
        ("두 시간 반", "three hours", "the source has 2.5 but the translation has 3"),
        ("2시간 반", "2 hours", "the source has 2.5 but the translation has 2"),
        ("2시간 30분", "3.5 hours", "the source has 2, 30 but the translation has 3.5"),
    ],
)
def test_numbers_changed_are_reported(source: str, translation: str, expected: str) -> None:
    problems = qa.check_numbers(source, translation)
    assert len(problems) == 1
    assert expected in problems[0]


@pytest.mark.parametrize(
    ("source", "translation", "said"),
    [
        (
            "v0.6.3에서 고쳐졌다",
            "fixed in v0.6.4.",
            "the source has v0.6.3 but the translation has v0.6.4",
        ),
        ("H100 8장", "eight H200 GPUs", "the source has H100 but the translation has H200"),
        (
            "Qwen2.5-7B 모델",
            "the Qwen2.5-72B model",
            "has Qwen2.5-7B but the translation has Qwen2.5-72B",
        ),
    ],
)
def test_a_name_with_a_number_put_in_anothers_place_is_said(
    source: str, translation: str, said: str
) -> None:
    """A name with a number changed silently (a version, a GPU, a model size) before: numbers
    after a letter were left out as names, and no one compared the names."""
    problems = qa.check_numbers(source, translation)
    assert problems == [f"names with numbers differ: {said}"] or any(said in p for p in problems)
    assert len(problems) == 1


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        # a minus sign is compared; U+2212 and `-` are one sign
        ("증가율 -3.5%", "a growth rate of -3.5%"),
        ("증가율 −3.5%", "a growth rate of -3.5%"),
        # a word of decrease beside the number stands for its sign
        ("매출 -3.5%", "revenue down 3.5%"),
        ("매출 -3.5%", "a 3.5% decrease in revenue"),
        ("매출이 3.5% 줄었다", "revenue: -3.5%"),
        ("기온 -20°C", "a temperature of 20°C below zero"),
        ("영하 20도", "-20°C"),
        ("처리량 −12%", "throughput fell 12%"),
        ("매출 ↓3.5%", "revenue -3.5%"),
        ("영업이익 △12억 원", "operating profit of -1.2 billion won"),
        # a hyphen in a range, a date, a name or a list bullet is not a sign
        ("3-5개", "3 to 5 items"),
        ("2026-12-04 배포", "deployed on December 4, 2026"),
        ("2016 –2018", "2016–2018"),
        ("2016년 -2018년", "2016–2018"),  # (a number with its unit before the hyphen)
        ("2016년 3월 -2018년 2월", "Mar 2016 – Feb 2018"),
        ("10GB -20GB", "10–20 GB"),
        ("GPT-4 모델 2개", "two GPT-4 models"),
        ("- 3개\n- 5개", "- 3 of them\n- 5 of them"),
        ("10-20% 빠름", "10–20% faster"),
        ("10에서 20%로 늘었다", "rose from 10% to 20%"),
        ("10~20% 빠름", "between 10 and 20% faster"),
        ("Python 3.10에서 20% 빨라졌다", "20% faster in Python 3.10"),
        # k/K, M, B, T after a number are its magnitude
        ("10k 토큰", "10,000 tokens"),
        ("10k 토큰", "1만 토큰"),
        ("10K명", "10,000 people"),
        ("1.5M 요청", "1,500,000 requests"),
        ("1.5M 요청", "150만 건"),
        ("요청 2.5M건", "2.5 million requests"),
        ("3B 파라미터", "30억 개 파라미터"),
        ("15T 토큰", "15조 토큰"),
        ("7B 모델", "a 7-billion-parameter model"),
        ("손실 -3억 원", "a loss of 300 million won"),
        ("(-2%)", "(a 2% drop)"),
        # a word of improvement too: its direction is the measure's (latency -5%: "5% faster")
        ("지연 -5%", "latency improved by 5%"),
        ("지연 -5%", "5% faster"),
        ("지연 -5%", "latency shortened by 5%"),
        ("비용 -5%", "saved 5% of the cost"),
        ("지연 5% 개선", "latency -5%"),
        ("지연 5% 단축", "latency: -5%"),
        ("5% 빨라졌다", "-5%"),
        ("성능 5% 향상", "performance: -5%"),
        ("비용을 5% 줄였다", "cost: -5%"),
        ("비용을 5% 절감", "cost -5%"),
        # a duration in another unit
        ("0.5초", "500 ms"),
        ("지연 1.5초", "1,500 ms of latency"),
        ("2분 동안", "for 120 seconds"),
        ("TTFT 250ms", "TTFT 0.25 s"),
    ],
)
def test_signs_and_magnitude_suffixes_equal(source: str, translation: str) -> None:
    assert qa.check_numbers(source, translation) == []


@pytest.mark.parametrize(
    ("source", "translation", "expected"),
    [
        # a sign dropped (or added) with no word of decrease: passed silently before
        ("증가율 -3.5%", "a growth rate of 3.5%", "the source has -3.5%"),
        ("증가율 −3.5%", "a growth rate of 3.5%", "the source has -3.5%"),
        ("기온 -20°C", "a temperature of 20°C", "the source has -20"),
        ("감소 -3", "change: 3", "the source has -3"),
        ("| 변화 |\n|---|\n| -3.5% |", "| change |\n|---|\n| 3.5% |", "the source has -3.5%"),
        ("성장률 3.5%", "growth of -3.5%", "the translation has -3.5%"),
        # the word of decrease must stand beside the number, not elsewhere in the text
        ("매출은 3.5% 줄었고 이익은 -2%", "revenue fell 3.5%, and profit 2%", "-2%"),
        # a word of increase does not stand for a minus
        ("지연 -5%", "latency increased by 5%", "the source has -5%"),
        ("지연 5% 증가", "latency -5%", "the translation has -5%"),
        ("매출 -5%", "revenue rose 5%", "the source has -5%"),
        # a magnitude suffix changed, or a conversion not read (the safe side: said)
        ("10k 토큰", "10,001 tokens", "10000"),
        ("1.5M 요청", "15만 건", "1500000"),
        ("10kg", "10,000 g", "the source has 10 "),
        ("0.5초", "50 ms", "the source has 0.5"),
        ("20°C", "68°F", "the source has 20 "),
    ],
)
def test_signs_and_magnitude_suffixes_changed_are_said(
    source: str, translation: str, expected: str
) -> None:
    problems = qa.check_numbers(source, translation)
    assert len(problems) == 1
    assert expected in problems[0] + " "


@pytest.mark.parametrize(
    ("source", "translation", "said"),
    [
        # the same number in another unit of its dimension: passed silently before
        (
            "지연 0.5초",
            "a latency of 0.5 ms",
            "the source has 0.5초 but the translation has 0.5 ms",
        ),
        ("10GB 메모리", "10MB of memory", "the source has 10GB but the translation has 10MB"),
        ("청크 320KB", "320 MB chunks", "the source has 320KB but the translation has 320 MB"),
        ("p50 3 ms", "p50 3 s", "the source has 3 ms but the translation has 3 s"),
        ("HBM 80GB", "80 GiB of HBM", "the source has 80GB but the translation has 80 GiB"),
        ("1 GiB 블록", "1 GB blocks", "the source has 1 GiB but the translation has 1 GB"),
        ("2시간 동안", "for 2 minutes", "the source has 2시간 but the translation has 2 minutes"),
        ("10 Gbps 링크", "a 10 GB/s link", "the source has 10 Gbps but the translation has 10 GB"),
        (
            "4 기가바이트",
            "4 megabytes",
            "the source has 4 기가바이트 but the translation has 4 megabytes",
        ),
        ("1.5시간", "1.5 seconds", "the source has 1.5시간 but the translation has 1.5 seconds"),
        ("250µs", "250 ms", "the source has 250µs but the translation has 250 ms"),
        # the same number written otherwise (`3.0` / `3`): a unit change, not a number change
        ("p50 3.0 ms", "p50 3 s", "the source has 3.0 ms but the translation has 3 s"),
        (
            "지연 2.50초",
            "a latency of 2.5 ms",
            "the source has 2.50초 but the translation has 2.5 ms",
        ),
        # a number word with its unit
        (
            "두 시간 동안",
            "for 2 minutes",
            "the source has 두 시간 but the translation has 2 minutes",
        ),
        ("for two hours", "2분 동안", "the source has two hours but the translation has 2분"),
        # a range gives its unit to both ends (only the second's was read)
        (
            "10–20 GB",
            "10–20 MB",
            "the source has 10 GB, 20 GB but the translation has 10 MB, 20 MB",
        ),
        ("10~20GB", "10-20 MB", "the source has 10GB, 20GB but the translation has 10 MB, 20 MB"),
        (
            "10 to 20 GB",
            "10 to 20 MB",
            "the source has 10 GB, 20 GB but the translation has 10 MB, 20 MB",
        ),
        (
            "10에서 20GB로",
            "from 10 to 20 MB",
            "the source has 10GB, 20GB but the translation has 10 MB, 20 MB",
        ),
        ("10–20 GB", "10 MB to 20 GB", "the source has 10 GB but the translation has 10 MB"),
        (
            "2~4MB",
            "between 2 and 4 GB",
            "the source has 2MB, 4MB but the translation has 2 GB, 4 GB",
        ),
        # one of two alike changed: compared as multisets
        ("3 ms와 3 ms", "3 ms and 3 s", "the source has 3 ms but the translation has 3 s"),
        # a conversion beside a changed unit: the conversion is not the change
        (
            "0.5초와 0.5초",
            "500 ms and 0.5 ms",
            "the source has 0.5초 but the translation has 0.5 ms",
        ),
        # a number changed and another's unit: one finding
        (
            "382개, 0.5초",
            "328, 0.5 ms",
            "the source has 382, 0.5초 but the translation has 328, 0.5 ms",
        ),
    ],
)
def test_a_number_whose_unit_changed_is_said(source: str, translation: str, said: str) -> None:
    """The bare number matched, so a changed unit (`0.5초` → `0.5 ms`, `10GB` → `10MB`,
    `80GB` → `80 GiB`) passed without a finding."""
    assert qa.check_numbers(source, translation) == [f"numbers differ: {said}"]


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        # a unit on one side only is not a change ("10GB와 80GB" → "10 and 80 GB")
        ("10GB와 80GB", "10 and 80 GB"),
        ("2–3초", "2 s to 3 s"),
        ("10–20 GB", "10 GB to 20 GB"),
        ("2~4GB", "between 2 and 4 GB"),
        ("10~20GB", "10 to 20 gigabytes"),
        ("10에서 20GB로", "from 10 GB to 20 GB"),
        ("1–2초", "1,000–2,000 ms"),
        ("1~2초", "1–2 s"),
        # the same unit in other words
        ("10 s", "10초"),
        ("0.5초", "0.5 seconds"),
        ("2분 동안", "for 2 mins"),
        ("3시간", "3 hours"),
        ("250 µs", "250 us"),
        ("2 기가바이트", "2 GB"),
        ("10 기가바이트", "10 gigabytes"),
        ("64 KB", "64 kB"),
        ("초당 10GB", "10 GB/s"),
        ("10 Gbps", "10 Gb/s"),
        # conversions that keep the quantity: 1000 or 1024 for a decimal-named unit, 1024 for
        # a binary one, 8 bits a byte
        ("1 GB", "1,024 MB"),
        ("1 GB", "1000 MB"),
        ("1 GiB", "1024 MiB"),
        ("1.5 GB", "1,536 MB"),
        ("1 GB/s", "8 Gbps"),
        ("1 KB", "1,024 bytes"),
        ("1시간", "60 minutes"),
        ("3,920 ms", "3.92 s"),
        # a duration in two units is their sum
        ("2시간 30분", "2.5 hours"),
        ("2시간 30분", "2 hours and 30 minutes"),
        ("1분 30초", "90 seconds"),
        ("1분 30초 만에", "in 1.5 minutes"),
        ("150 minutes", "2시간 30분"),
        ("1시간 2분 3초", "3,723 seconds"),
        # `B` glued to digits is a magnitude (billion), never bytes; `m` is not minutes; a decade
        # is not seconds; a name with digits is a name
        ("7B 모델은 14GB", "the 7B model takes 14 GB"),
        ("64B 토큰", "64 billion tokens"),
        ("5m 높이", "5 s"),
        ("1990년대에 1990분", "1990 of them, in the 1990s"),
        ("H100 80GB", "an 80 GB H100"),
        ("타임아웃 30s", "30초 타임아웃"),
    ],
)
def test_units_kept_or_not_compared_are_not_said(source: str, translation: str) -> None:
    assert qa.check_numbers(source, translation) == []


@pytest.mark.parametrize(
    "text",
    ["the 1990s", "the '90s", "5m", "64B", "64 B", "2 mb", "3분의 1", "3분기", "4분할", "10초과"],
)
def test_what_is_not_read_as_a_unit(text: str) -> None:
    assert not qa.numbers_of(text).measures


def test_a_conversion_that_changes_the_quantity_is_still_said() -> None:
    assert qa.check_numbers("1 GB", "100 MB") == [
        "numbers differ: the source has 1 but the translation has 100"
    ]
    assert qa.check_numbers("1 GiB", "1000 MiB") != []


def test_a_name_spelled_out_is_not_said() -> None:
    assert qa.check_numbers("E2E 지연 p99", "end-to-end p99 latency") == []


def test_numbers_inside_code_do_not_count() -> None:
    assert qa.check_numbers("`x = 3`은 그대로", "`x = 3` stays") == []
    # code is the code check's business
    assert qa.check_code("`x = 3`", "`x = 4`")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200))
def test_numbers_check_is_reflexive(text: str) -> None:
    assert qa.check_numbers(text, text) == []


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "2.4–2.7×",
                "157 → 382",
                "99.08%",
                "1,900",
                "#1234",
                "`x`",
                "[a](https://e.org)",
                "## 제목",
                "- 항목",
                "| a | b |\n|---|---|\n| 1 | 2 |",
                "세 배",
                "Jan 2023",
                "\n\n",
                "```py\nx = 1\n```",
                "텍스트",
                "12억",
                "p99",
            ]
        ),
        max_size=12,
    )
)
def test_every_check_is_reflexive_on_markdown(parts: list[str]) -> None:
    text = " ".join(parts)
    for check in (qa.check_numbers, qa.check_links, qa.check_code, qa.check_refs, qa.check_markup):
        assert check(text, text) == [], check.__name__


# --------------------------------------------------------------------------- links, code, refs


def test_links() -> None:
    assert qa.check_links("[노트](https://e.org/a)", "[notes](https://e.org/a)") == []
    problems = qa.check_links("[노트](https://e.org/a)", "[notes](https://e.org/b)")
    assert any("https://e.org/a" in p for p in problems)
    assert any("https://e.org/b" in p for p in problems)
    assert qa.check_links("<https://e.org/x> 참고", "see https://e.org/x.") == []
    assert qa.check_links("![그림](/img/a.png)", "![figure](/img/b.png)")


def test_a_link_to_the_translations_own_language_page_stands_for_the_source_link() -> None:
    # the reader of the English post stays in English: no finding (two errors once reviewed)
    src = "[이전 글](/ko/blog/prev/)과 [영문판](/en/about/)"
    same = "[the previous post](/ko/blog/prev/) and [English](/en/about/)"
    own = "[the previous post](/en/blog/prev/) and [English](/en/about/)"
    assert qa.check_links(src, same, ("ko", "en")) == []
    assert qa.check_links(src, own, ("ko", "en")) == []
    assert qa.check_links(src, own) == [  # without the languages: as before
        "link target /ko/blog/prev/ of the source is missing",
        "the translation links to /en/blog/prev/, which the source does not",
    ]
    # another page is still another page
    assert qa.check_links(src, own.replace("/en/blog/prev/", "/en/blog/next/"), ("ko", "en")) == [
        "link target /ko/blog/prev/ of the source is missing",
        "the translation links to /en/blog/next/, which the source does not",
    ]


def test_a_code_span_repeated_or_dropped_says_how_many_times() -> None:
    """A code span the source has once and the translation twice (an engine that repeated a
    placeholder): not "the source does not [have it]", which it does."""
    assert qa.check_code("Set `a` and `b`.", "Set `a` and `a` and `b`.") == [
        "code span `a` is twice in the translation, once in the source"
    ]
    assert qa.check_code("`a`, `a`, `a`", "`a`") == [
        "code span `a` is once in the translation, 3 times in the source"
    ]


def test_code_spans_and_blocks() -> None:
    src = "`block_size`가 16이면\n\n```python\nx = hash((1, 2))\n```\n"
    assert qa.check_code(src, "With `block_size` 16\n\n```python\nx = hash((1, 2))\n```\n") == []
    changed = qa.check_code(src, "With `block-size` 16\n\n```python\nx = hash((1, 2))\n```\n")
    assert any("block_size" in p for p in changed)
    block = qa.check_code(src, "With `block_size` 16\n\n```python\nx = hash((1, 3))\n```\n")
    assert block == ["code block 1 differs from the source (first at its line 1)"]
    assert qa.check_code(src, "With `block_size` 16") != []


def test_refs() -> None:
    assert qa.check_refs("논의는 #6081을 참고하세요", "see #6081") == []
    assert qa.check_refs("vllm-project/vllm#123 참고", "see vllm-project/vllm#123") == []
    assert qa.check_refs("논의는 #6081을 참고하세요", "see the discussion") == [
        "reference #6081 of the source is missing"
    ]
    assert qa.check_refs("제목", "title #12") == ["the translation adds reference #12"]


def test_markup_skeleton() -> None:
    src = "## 제목\n\n- 하나\n- 둘\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![x](/a.png)\n"
    assert (
        qa.check_markup(
            src, "## Title\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![x](/a.png)\n"
        )
        == []
    )
    problems = qa.check_markup(src, "### Title\n\n- one\n\n| a |\n|---|\n| 1 |\n")
    text = "\n".join(problems)
    assert "headings differ" in text
    assert "2 list item(s) in the source, 1 here" in text
    assert "tables" in text
    assert "1 image(s) in the source, 0 here" in text


# --------------------------------------------------------------------------- UI strings, prefix


def test_placeholders() -> None:
    assert qa.check_placeholders("%(count)s posts", "글 %(count)s개") == []
    assert qa.check_placeholders("Page {page}", "{page}쪽") == []
    assert qa.check_placeholders("%(count)s posts", "글 %(n)s개")
    assert qa.check_placeholders("{page} of {total}", "{page}쪽")
    (markup,) = qa.check_placeholders("Read more", "<b>더 읽기</b>")
    assert markup.startswith("msgstr adds markup its msgid does not have")


def test_prefix() -> None:
    assert qa.check_prefix("[vLLM] 스케줄러 분석", "[vLLM] Scheduler deep dive") == []
    assert qa.check_prefix("[vLLM] 스케줄러 분석", "Scheduler deep dive") == [
        "the title prefix [vLLM] of the source is not kept"
    ]
    assert qa.check_prefix("[vLLM] 스케줄러", "[VLLM-ko] Scheduler")
    assert qa.check_prefix("스케줄러", "Scheduler") == []


# --------------------------------------------------------------------------- glossary

GLOSSARY = """\
terms:
  - en: KV cache
    ko: [KV cache, KV 캐시]
  - en: preemption
    ko: 선점
keep: [vLLM]
"""


def _glossary(tmp_path: Path, text: str) -> tuple[Glossary, Collector]:
    (tmp_path / "glossary.yaml").write_text(text, encoding="utf-8")
    collector = Collector()
    return load_glossary(tmp_path, ["ko", "en"], collector), collector


def test_glossary_terms_and_keep(tmp_path: Path) -> None:
    g, collector = _glossary(tmp_path, GLOSSARY)
    assert not collector.items
    assert qa.check_glossary("선점이 일어나면", "When preemption happens", g, "ko", "en") == []
    assert qa.check_glossary("선점이 일어나면", "When eviction happens", g, "ko", "en") == [
        "glossary: '선점' should be rendered as 'preemption'"
    ]
    assert qa.check_glossary("The KV cache grows", "KV 캐시가 커진다", g, "en", "ko") == []
    assert qa.check_glossary("The KV cache grows", "키-값 캐시가 커진다", g, "en", "ko")
    assert qa.check_glossary("vLLM 서버", "the vLLM server", g, "ko", "en") == []
    keep = ["'vLLM' is never translated (glossary keep) but is missing here"]
    assert qa.check_glossary("vLLM 서버", "the server", g, "ko", "en") == keep
    assert qa.check_glossary("vLLM 서버", "the VLLM server", g, "ko", "en") == keep  # exact case


def test_glossary_errors_name_file_and_line(tmp_path: Path) -> None:
    _, collector = _glossary(tmp_path, "terms:\n  - en: cache\n    ja: キャッシュ\n")
    assert [(d.file, d.line, d.code) for d in collector.errors] == [
        ("glossary.yaml", 3, "glossary")
    ]
    _, collector = _glossary(tmp_path, "terms:\n  - en: cache\n    ko: 7\n")
    assert collector.errors and collector.errors[0].line == 2
    _, collector = _glossary(tmp_path, "terms: []\nunknown: 1\n")
    assert collector.errors and collector.errors[0].line == 2


# --------------------------------------------------------------------------- untranslated


def test_untranslated() -> None:
    assert qa.check_untranslated("The scheduler decides.", "The scheduler decides.", "ko") == [
        "the translation is identical to the source"
    ]
    assert qa.check_untranslated("The scheduler decides.", "The scheduler picks.", "ko") == [
        "the Korean translation has no Hangul"
    ]
    assert qa.check_untranslated("스케줄러가 정한다.", "스케줄러가 정한다.", "en") == [
        "the translation is identical to the source"
    ]
    # names, acronyms, code and allowed terms need no translation
    assert qa.check_untranslated("Triton Inference Server", "Triton Inference Server", "ko") == []
    assert qa.check_untranslated("vLLM", "vLLM", "ko") == []
    assert qa.check_untranslated("```\nx = 1\n```", "```\nx = 1\n```", "en") == []
    assert qa.check_untranslated("Prometheus and Grafana", "Prometheus, Grafana", "ko") == []
    assert (
        qa.check_untranslated("serving at scale", "serving at scale", "ko", ["serving at scale"])
        == []
    )


# --------------------------------------------------------------------------- inline ignores


def test_inline_ignore_markers() -> None:
    text = "본문\n\n[//]: # (bipub-ignore: numbers,links 반올림한 값)\n"
    (marker,) = parse_inline(text)
    assert marker.codes == ("numbers", "links")
    assert marker.reason == "반올림한 값"
    (yaml_marker,) = parse_inline('context: "x"  # bipub-ignore: numbers 1.2만 = 12,000')
    assert yaml_marker.reason == "1.2만 = 12,000"
    assert inline_problems(parse_inline("<!-- bipub-ignore: numbers -->")) == [
        "bipub-ignore needs a reason after the code(s); it is not applied"
    ]
    assert inline_problems(parse_inline("# bipub-ignore: nubmers typo")) == [
        "bipub-ignore: unknown finding code(s) nubmers"
    ]
