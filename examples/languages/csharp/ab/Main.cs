using System;
using System.Globalization;

class Program
{
    static void Main()
    {
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            var p = line.Split(new[] { ' ', '\t' }, StringSplitOptions.RemoveEmptyEntries);
            if (p.Length < 2) continue;
            Console.WriteLine(long.Parse(p[0], CultureInfo.InvariantCulture) + long.Parse(p[1], CultureInfo.InvariantCulture));
        }
    }
}
