"""Precision and recall of the default rule pack on its own examples and counterexamples.

python -m bench.precision
"""

from __future__ import annotations

from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules


def main() -> None:
    rules = default_rules()
    detector = Detector(rules)
    true_positive = false_negative = false_positive = true_negative = 0
    for rule in rules:
        for example in rule.examples:
            hit = rule.id in {m.rule.id for m in detector.scan_document(example.text, example.path)}
            true_positive += hit
            false_negative += not hit
        for example in rule.counterexamples:
            # Any finding at all on a text labelled "not a secret" is a false positive, whatever the rule.
            hit = bool(detector.scan_document(example.text, example.path))
            false_positive += hit
            true_negative += not hit
    precision = true_positive / max(1, true_positive + false_positive)
    recall = true_positive / max(1, true_positive + false_negative)
    print(f"examples: {true_positive + false_negative} secrets, {false_positive + true_negative} non-secrets")
    print(f"precision {precision:.3f}  recall {recall:.3f}  (TP {true_positive}, FP {false_positive}, "
          f"FN {false_negative}, TN {true_negative})")  # fmt: skip


if __name__ == "__main__":
    main()
