public class Main {
    public static void main(String[] args) {
        int x = "not an int";
    }
}
