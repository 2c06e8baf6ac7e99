fn main() {
    let x: i32 = "not an int";
}
