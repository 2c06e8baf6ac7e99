[<EntryPoint>]
let main (argv: string[]) =
    let x : int = "not an int"
    0
