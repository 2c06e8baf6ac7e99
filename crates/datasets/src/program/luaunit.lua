-- verdict's luaunit: the part of luaunit that MultiPL-E's Lua tests use, put beside the
-- program as `luaunit.lua` (Debian packages no luaunit; docs/datasets.md, "MultiPL-E").
-- `assertEquals(actual, expected)` compares as luaunit does: `==`, then tables key by key,
-- deeply; `LuaUnit.run()` calls every global function whose name starts with "test" (any
-- case), and every "test" method of a global table whose name starts with "Test", in name
-- order, and returns the count of failed ones.
local M = { LuaUnit = {} }

local function equal(a, b, seen)
  if a == b then
    return true
  end
  if type(a) ~= "table" or type(b) ~= "table" then
    return false
  end
  seen = seen or {}
  if seen[a] == b then
    return true
  end
  seen[a] = b
  local count = 0
  for k, v in pairs(a) do
    count = count + 1
    if not equal(v, b[k], seen) then
      return false
    end
  end
  for _ in pairs(b) do
    count = count - 1
  end
  return count == 0
end

local function show(value, depth)
  depth = depth or 0
  if type(value) == "string" then
    return string.format("%q", value)
  end
  if type(value) ~= "table" or depth > 3 then
    return tostring(value)
  end
  local parts, keys = {}, {}
  for k in pairs(value) do
    keys[#keys + 1] = k
  end
  table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
  for _, k in ipairs(keys) do
    parts[#parts + 1] = "[" .. show(k, depth + 1) .. "]=" .. show(value[k], depth + 1)
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

function M.assertEquals(actual, expected)
  if not equal(actual, expected) then
    error("expected: " .. show(expected) .. ", actual: " .. show(actual), 2)
  end
end

function M.assertTrue(value)
  if value ~= true then
    error("expected: true, actual: " .. show(value), 2)
  end
end

function M.assertFalse(value)
  if value ~= false then
    error("expected: false, actual: " .. show(value), 2)
  end
end

function M.assertNil(value)
  if value ~= nil then
    error("expected: nil, actual: " .. show(value), 2)
  end
end

local function tests()
  local found = {}
  for name, value in pairs(_G) do
    if type(name) == "string" then
      if type(value) == "function" and name:lower():sub(1, 4) == "test" then
        found[#found + 1] = { name = name, call = value }
      elseif type(value) == "table" and name:sub(1, 4) == "Test" then
        for method, fn in pairs(value) do
          if type(method) == "string" and type(fn) == "function" and method:lower():sub(1, 4) == "test" then
            found[#found + 1] = { name = name .. "." .. method, call = function() fn(value) end }
          end
        end
      end
    end
  end
  table.sort(found, function(x, y) return x.name < y.name end)
  return found
end

function M.LuaUnit.run()
  local failures = 0
  local all = tests()
  for _, test in ipairs(all) do
    local ok, err = pcall(test.call)
    if not ok then
      failures = failures + 1
      print(test.name .. " failed: " .. tostring(err))
    end
  end
  print(string.format("Ran %d tests, %d successes, %d failures", #all, #all - failures, failures))
  print(failures == 0 and "OK" or "FAILED")
  return failures
end

return M
