import java.util.Scanner;

public class ScannerBigStack {
    static int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(null, () -> {
            Scanner sc = new Scanner(System.in);
            long a = sc.nextLong(), b = sc.nextLong();
            if (depth(1_000_000) != 1_000_000) throw new AssertionError();
            System.out.println(a + b);
        }, "main", 1L << 28);
        t.start();
        t.join();
    }
}
