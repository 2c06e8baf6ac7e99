Option Strict On

Imports System
Imports System.Globalization
Imports System.IO

Module Program
    Sub Main()
        Dim r As New StreamReader(Console.OpenStandardInput())
        Dim line As String = r.ReadLine()
        While line IsNot Nothing
            Dim p As String() = line.Split(New Char() {" "c, ControlChars.Tab}, StringSplitOptions.RemoveEmptyEntries)
            If p.Length >= 2 Then
                Console.WriteLine(Int64.Parse(p(0), CultureInfo.InvariantCulture) + Int64.Parse(p(1), CultureInfo.InvariantCulture))
            End If
            line = r.ReadLine()
        End While
    End Sub
End Module
