with Ada.Text_IO; use Ada.Text_IO;

procedure Main is
   A : Integer := "not a number";
begin
   Put_Line (Integer'Image (A));
end Main;
