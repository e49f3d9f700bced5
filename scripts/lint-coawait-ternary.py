#!/usr/bin/env python3
"""Flags a conditional operator (?:) inside a co_await expression in sim/, kernels/ and tests/.

GCC 12 miscompiles temporaries of a ?: inside a co_await expression (seen as free(): invalid
pointer when the branches build objects with destructors), so socsim computes such a value in a
statement of its own and then awaits it. The check reads each co_await up to the end of its
statement (across lines), with comments, string and character literals blanked out, and reports
file:line of every '?' in it. Exit 0: none; 1: some (listed); 2: bad usage.

  scripts/lint-coawait-ternary.py [ROOT]      # ROOT: the checkout (default: this script's parent)
  scripts/lint-coawait-ternary.py --self-test # the check against known good and bad snippets
"""
import pathlib
import re
import sys

FOLDERS = ("sim", "kernels", "tests")
SUFFIXES = {".cpp", ".h", ".hpp", ".cc"}


def blank(text: str) -> str:
    """Comments and literals replaced by spaces (newlines kept, so offsets map to lines)."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def findings(path: pathlib.Path):
    code = blank(path.read_text(encoding="utf-8", errors="replace"))
    for m in re.finditer(r"\bco_await\b", code):
        depth, i = 0, m.end()
        while i < len(code):
            c = code[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif c == ";" and depth == 0:
                break
            elif c == "?":
                yield code.count("\n", 0, i) + 1
            i += 1


def self_test() -> int:
    import tempfile
    cases = {
        "co_await sim.delay(a ? b : c);": 1,
        "co_await when_all(sim,\n    make(x ? y : z));": 1,
        "const Tick t = a ? b : c;\nco_await sim.delay(t);": 0,
        "co_await f(std::string(\"a?b:c\"));  // x ? y : z": 0,
        "co_await g(c == '?' ? 1 : 2);": 1,
        "co_await g(ns::v); int x = a ? b : c;": 0,
    }
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for snippet, expected in cases.items():
            f = pathlib.Path(tmp) / "case.cpp"
            f.write_text("Task<> t() {\n" + snippet + "\n}\n")
            got = len(list(findings(f)))
            if got != expected:
                print(f"self-test: {snippet!r}: {got} finding(s), expected {expected}", file=sys.stderr)
                failed += 1
    print(f"self-test: {len(cases) - failed} of {len(cases)} cases as expected")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1]) if len(argv) == 2 else pathlib.Path(__file__).resolve().parent.parent
    if not (root / "sim").is_dir():
        print(f"lint-coawait-ternary: {root} has no sim/ folder (expected the socsim checkout)", file=sys.stderr)
        return 2
    bad = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                bad += [f"{path.relative_to(root)}:{line}" for line in findings(path)]
    for b in bad:
        print(f"{b}: '?:' inside a co_await expression (GCC 12 miscompiles its temporaries): compute it in a statement first")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
