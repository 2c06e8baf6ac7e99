class Program
{
    static void Main() { int x = "string"; }
}
