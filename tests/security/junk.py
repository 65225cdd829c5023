"""Hypothesis strategies for hostile input: what a careless client or an attacker may send."""

from hypothesis import strategies as st

BIG = 100_000  # characters: a field far past anything a page sends

# Text that has broken parsers before: NUL bytes, digits that str.isdigit() accepts but int()
# does not ("²"), other scripts' digits, numbers past every column's range, markup, paths,
# direction overrides, percent-escapes that decode to nothing valid.
NASTY = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "1\x00",
    "²",
    "t²",
    "s²",
    "٣",
    "t٣",
    "\U0001d7d9",  # MATHEMATICAL DOUBLE-STRUCK DIGIT ONE
    "-1",
    "-0",
    "+1",
    " 7 ",
    "1e3",
    "0x10",
    "1.5",
    "NaN",
    "inf",
    "true",
    "null",
    "[]",
    "{}",
    str(2**31),
    str(2**63),
    str(2**64),
    "9" * 50,
    "9" * 5000,
    "t" + "9" * 5000,
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "' OR 1=1 --",
    "../../etc/passwd",
    "%00",
    "%ff%fe",
    "\u202e\u0007\x1b[31m",
    "\ufeff\u200b",
    "😀" * 10,
]

# Any text a browser can send (no lone surrogates: they cannot be encoded in a request).
plain_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)
big_text = st.sampled_from(["x" * BIG, "9" * BIG, "\x00" * BIG, "é" * BIG, "<b>" * (BIG // 3)])
ints = st.one_of(
    st.integers(-5, 70),  # around every valid range (tiles 0-59, spaces 0-24, rotations 0-3)
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1]),
)

# A form or query value.
value = st.one_of(
    st.sampled_from(NASTY),
    plain_text,
    ints.map(str),
    big_text,
)
