import kotlin.system.exitProcess

fun main() {
    val (a, b) = readLine()!!.trim().split(" ").map { it.toLong() }
    println(a + b)
    exitProcess(0)
}
