program main;
var
  a: int64;
begin
  a := 'not a number';
end.
