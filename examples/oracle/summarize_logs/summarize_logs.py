"""The seed's log summariser: lines are `timestamp | LEVEL | module | message`."""


def summarize_logs(lines, last_n_errors):
    by_level = {}
    errors = []
    malformed = 0
    for line in lines:
        parts = [part.strip() for part in line.split("|")]
        if len(parts) != 4:
            malformed += 1
            continue
        timestamp, level, module, message = parts
        by_level[level] = by_level.get(level, 0) + 1
        if level == "ERROR":
            errors.append("%s %s: %s" % (timestamp, module, message))
    return {
        "total": len(lines),
        "by_level": by_level,
        "malformed": malformed,
        "last_errors": errors[-last_n_errors:] if last_n_errors > 0 else [],
    }
