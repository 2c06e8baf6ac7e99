package main

func main() {
	var x int = "not an int"
}
