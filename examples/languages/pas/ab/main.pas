program main;
var
  a, b: int64;
begin
  while not seekeof(input) do
  begin
    read(a, b);
    writeln(a + b);
  end;
end.
