open System
open System.Globalization
open System.IO

[<EntryPoint>]
let main (argv: string[]) =
    use r = new StreamReader(Console.OpenStandardInput())
    let mutable line = r.ReadLine()
    while not (isNull line) do
        let p = line.Split([| ' '; '\t' |], StringSplitOptions.RemoveEmptyEntries)
        if p.Length >= 2 then
            Console.WriteLine(Int64.Parse(p.[0], CultureInfo.InvariantCulture) + Int64.Parse(p.[1], CultureInfo.InvariantCulture))
        line <- r.ReadLine()
    0
