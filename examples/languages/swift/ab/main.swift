while let line = readLine() {
    let p = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Int64($0) }
    if p.count >= 2 { print(p[0] + p[1]) }
}
