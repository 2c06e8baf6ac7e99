"""csv_filter --in IN --out OUT --col COLUMN --eq VALUE: keeps the rows whose COLUMN equals VALUE."""
import argparse
import csv
import sys


def main():
    parser = argparse.ArgumentParser(prog="csv_filter")
    parser.add_argument("--in", dest="src", required=True)
    parser.add_argument("--out", dest="dst", required=True)
    parser.add_argument("--col", required=True)
    parser.add_argument("--eq", required=True)
    args = parser.parse_args()
    with open(args.src, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if args.col not in (reader.fieldnames or []):
            print("csv_filter: no column %r" % args.col, file=sys.stderr)
            return 3
        rows = [row for row in reader if row[args.col] == args.eq]
        fields = reader.fieldnames
    with open(args.dst, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print("%d row(s) written to %s" % (len(rows), args.dst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
