"""scripts/perfdoc.py - what the table scripts share: the one way a generated section
replaces its old text in docs/PERFORMANCE.md (between <!-- BEGIN name --> and
<!-- END name -->, appended with a heading when absent), written atomically."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "PERFORMANCE.md")


def markers(name):
    return f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"


def replace_section(name, text, heading, path=DOC):
    """Puts `text` (which starts with the BEGIN marker and ends with the END marker and a
    newline) in place of section `name` of `path`."""
    begin, end = markers(name)
    old = open(path).read() if os.path.exists(path) else "# flowdeflate performance\n"
    if begin in old and end in old and old.index(begin) < old.index(end):
        a, b = old.index(begin), old.index(end) + len(end)
        if old[b:b + 1] == "\n":
            b += 1
        new = old[:a] + text + old[b:]
    else:
        new = old.rstrip("\n") + f"\n\n## {heading}\n\n" + text
    with open(path + ".new", "w") as f:
        f.write(new)
    os.replace(path + ".new", path)
