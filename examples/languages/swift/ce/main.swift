let x: Int = "not an int"
