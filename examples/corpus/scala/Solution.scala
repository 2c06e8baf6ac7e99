object Solution {
  def main(args: Array[String]): Unit = {
    val Array(a, b) = scala.io.StdIn.readLine().trim.split("\\s+").map(_.toLong)
    println(a + b)
    sys.exit(0)
  }
}
