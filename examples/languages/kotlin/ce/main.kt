fun main() {
    val x: Int = "not an int"
}
