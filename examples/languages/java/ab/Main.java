import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            String[] p = line.trim().split("\\s+");
            if (p.length < 2) continue;
            out.append(Long.parseLong(p[0]) + Long.parseLong(p[1])).append('\n');
        }
        System.out.print(out);
    }
}
