#!/usr/bin/env python3
"""The channel labels the shipped systems declare (plugins/systems/*.c: {name, unit,
label}) are what every figure writes on its axes and panel titles: Greek letters and
operators as such, not spelled out in ASCII (issue 26: "psi", "Omega", "theta1 - theta2").
Finds each nsdyn_channel initializer's label and reports a spelled-out Greek letter (a
whole word, digits after it allowed: "theta1"), an ASCII power ("m^2": the plot writes
"^2" as "²" itself, but a label should not rely on it) or " - " for a minus. Names
(the first string, a CSV column) stay ASCII and are not checked.

Usage: channel_labels.py SOURCE_DIR"""
import pathlib
import re
import sys

GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho "
         "sigma tau upsilon phi chi psi omega").split()
WORD = re.compile(r"(?<![A-Za-z_])(" + "|".join(GREEK) + r")\d*(?![A-Za-z_])", re.I)
# {"name", "unit", "label"} with the label possibly split over adjacent literals
ENTRY = re.compile(r'\{\s*"([A-Za-z0-9_.]+)",\s*"([^"]*)",\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\}')


def labels(src):
    for path in sorted((src / "plugins" / "systems").glob("*.c")):
        text = path.read_text()
        for block in re.finditer(r"nsdyn_channel\s+\w+\[\]\s*=\s*\{(.*?)\n?\};", text, re.S):
            for e in ENTRY.finditer(block.group(1)):
                label = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', e.group(3)))
                yield path.name, e.group(1), label


def main():
    src = pathlib.Path(sys.argv[1])
    problems, n = [], 0
    for file, name, label in labels(src):
        n += 1
        for m in WORD.finditer(label):
            problems.append(f"{file}: channel {name}: label '{label}' spells out "
                            f"'{m.group(0)}' (write the Greek letter)")
        if re.search(r"\^-?\d", label):
            problems.append(f"{file}: channel {name}: label '{label}' has an ASCII power")
        if " - " in label:
            problems.append(f"{file}: channel {name}: label '{label}' has '-' for a minus (−)")
    for p in problems:
        print("FAIL:", p)
    print(f"{n} channel labels checked, {len(problems)} problems")
    return 1 if problems or n < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
