fun main() {
    val out = StringBuilder()
    while (true) {
        val line = readLine() ?: break
        val p = line.trim().split(Regex("\\s+"))
        if (p.size < 2) continue
        out.append(p[0].toLong() + p[1].toLong()).append('\n')
    }
    print(out)
}
