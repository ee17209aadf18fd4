-- wrk script: spread requests over the warm actors actor-0001…actor-NNNN
-- (NNNN from the ACTORS environment variable, default 16) by Host header.
local n = tonumber(os.getenv("ACTORS") or "16")
local hosts = {}
for i = 1, n do
  hosts[i] = string.format("actor-%04d.default.actors.resources.substrate.ate.dev", i)
end
local i = 0
request = function()
  i = i % n + 1
  return wrk.format("GET", "/", { ["Host"] = hosts[i] })
end
