"""Reads receipt.txt (`NAME x2  7.50` or `NAME*1 3.2` per line) and prints each line's amount and the total."""
import re
from decimal import Decimal

LINE = re.compile(r"^(.*?)\s*(?:x|\*)(\d+)\s+(\d+(?:\.\d+)?)\s*$")

total = Decimal("0")
with open("receipt.txt", encoding="utf-8") as f:
    for raw in f:
        raw = raw.strip()
        if not raw:
            continue
        m = LINE.match(raw)
        if m is None:
            print("skipped: %s" % raw)
            continue
        name, qty, price = m.group(1), int(m.group(2)), Decimal(m.group(3))
        amount = price * qty
        total += amount
        print("%s %d x %.2f = %.2f" % (name, qty, price, amount))
print("TOTAL %.2f" % total)
