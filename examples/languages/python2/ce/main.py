def main(:
    pass
