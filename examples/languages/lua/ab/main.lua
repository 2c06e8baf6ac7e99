for line in io.lines() do
  local a, b = line:match("^%s*(%-?%d+)%s+(%-?%d+)")
  if a then print(math.tointeger(a + b)) end
end
