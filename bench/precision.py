"""Precision and recall of the default rule pack on the labelled examples kept in tests/test_rules.py.

python -m bench.precision
"""

from __future__ import annotations

from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules
from tests.test_rules import CASES


def main() -> None:
    detector = Detector(default_rules())
    true_positive = false_negative = false_positive = true_negative = 0
    for rule_id, (must, must_not) in CASES.items():
        for line, path in must:
            hit = rule_id in {m.rule.id for m in detector.scan_line(line, path)}
            true_positive += hit
            false_negative += not hit
        for line, path in must_not:
            # Any finding at all on a line labelled "not a secret" is a false positive, whatever the rule.
            hit = bool(detector.scan_line(line, path))
            false_positive += hit
            true_negative += not hit
    precision = true_positive / max(1, true_positive + false_positive)
    recall = true_positive / max(1, true_positive + false_negative)
    print(f"labelled lines: {true_positive + false_negative} secrets, {false_positive + true_negative} non-secrets")
    print(f"precision {precision:.3f}  recall {recall:.3f}  (TP {true_positive}, FP {false_positive}, "
          f"FN {false_negative}, TN {true_negative})")  # fmt: skip


if __name__ == "__main__":
    main()
