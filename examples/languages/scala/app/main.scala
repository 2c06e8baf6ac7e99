// A+B as people write Scala: `object Main extends App` in a file named after nothing.
object Main extends App {
  for (line <- scala.io.Source.stdin.getLines()) {
    val p = line.trim.split("\\s+")
    if (p.length >= 2) println(p(0).toLong + p(1).toLong)
  }
}
