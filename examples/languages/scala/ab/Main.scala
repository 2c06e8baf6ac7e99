object Main {
  def main(args: Array[String]): Unit = {
    val out = new StringBuilder
    for (line <- scala.io.Source.stdin.getLines()) {
      val p = line.trim.split("\\s+")
      if (p.length >= 2) out.append(p(0).toLong + p(1).toLong).append('\n')
    }
    print(out)
  }
}
