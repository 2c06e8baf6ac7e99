import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

// Keeps 1 GiB alive: under a 256 MB limit this must be Memory Limit Exceeded.
public class Main {
    public static void main(String[] args) {
        List<byte[]> kept = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            byte[] block = new byte[1 << 20];
            Arrays.fill(block, (byte) i);
            kept.add(block);
        }
        System.out.println(kept.size());
    }
}
