Option Strict On

Module Program
    Sub Main()
        Dim x As Integer = "not an int"
    End Sub
End Module
