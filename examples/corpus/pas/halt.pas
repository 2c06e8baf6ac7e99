program AplusB;
var
  a, b: Int64;
begin
  ReadLn(a, b);
  WriteLn(a + b);
  Halt(0);
  WriteLn('not reached');
end.
