-- wrk script: ReceiveMessage (MaxNumberOfMessages=10, WaitTimeSeconds=0) and DeleteMessageBatch of
-- what came, over AWS Query (PROTOCOL=query, the default) or AWS JSON 1.0 (PROTOCOL=json), against
-- the queue in QUEUE_URL, which holds messages stored beforehand (fill.lua). Used by
-- load-tests/wrk/compare.sh.
--
-- Every connection sends a receive; an answer with messages queues a DeleteMessageBatch of their
-- receipt handles, which the next request to go out (on any connection) sends. Counted: messages
-- received, receipt handles deleted, failures (non-2xx answers and refused batch entries). A
-- run ends at wrk's -d or when the queue looks drained: EMPTY_RECEIVES (default 32) empty receives
-- in a row stop the thread and create the file named by STOP_FILE (if set), on which compare.sh
-- interrupts wrk (wrk itself waits out -d). The measured window runs from the first request to the
-- last answer that deleted something (a monotonic clock through LuaJIT's FFI), so the drained
-- queue's empty receives and the wait for the interrupt are not in it. done() prints one line that
-- compare.sh reads:
--   recvdel received=N deleted=N failed=N duration_us=N
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } sluice_timespec;
  int clock_gettime(int clock, sluice_timespec *ts);
]]
local clock = ffi.new("sluice_timespec")
local function now_us()
  ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
  return tonumber(clock.tv_sec) * 1e6 + tonumber(clock.tv_nsec) / 1e3
end

local protocol = os.getenv("PROTOCOL") or "query"
local queue = os.getenv("QUEUE_URL") or "http://127.0.0.1:9500/000000000000/bench"
local stop_after = tonumber(os.getenv("EMPTY_RECEIVES") or "32")
local stop_file = os.getenv("STOP_FILE")

received, deleted, failed, started_us, ended_us = 0, 0, 0, 0, 0
local pending, first, last = {}, 1, 0
local empties = 0
local receive_request
local query_headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }
local json_headers = { ["Content-Type"] = "application/x-amz-json-1.0" }

local function urlencode(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

local function xml_unescape(s)
  return (s:gsub("&quot;", '"'):gsub("&apos;", "'"):gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&amp;", "&"))
end

local function json_unescape(s)
  return (s:gsub("\\/", "/"):gsub('\\"', '"'):gsub("\\\\", "\\"))
end

local function json_escape(s)
  return (s:gsub("\\", "\\\\"):gsub('"', '\\"'))
end

function init(args)
  if protocol == "json" then
    json_headers["X-Amz-Target"] = "AmazonSQS.ReceiveMessage"
    receive_request = wrk.format("POST", "/", json_headers,
      '{"QueueUrl":"' .. queue .. '","MaxNumberOfMessages":10,"WaitTimeSeconds":0}')
    json_headers["X-Amz-Target"] = "AmazonSQS.DeleteMessageBatch"
  else
    receive_request = wrk.format("POST", "/", query_headers,
      "Action=ReceiveMessage&Version=2012-11-05&MaxNumberOfMessages=10&WaitTimeSeconds=0&QueueUrl=" .. urlencode(queue))
  end
end

local function delete_request(handles)
  if protocol == "json" then
    local entries = {}
    for i, h in ipairs(handles) do
      entries[i] = '{"Id":"' .. i .. '","ReceiptHandle":"' .. json_escape(h) .. '"}'
    end
    return wrk.format("POST", "/", json_headers,
      '{"QueueUrl":"' .. queue .. '","Entries":[' .. table.concat(entries, ",") .. "]}")
  end
  local form = { "Action=DeleteMessageBatch&Version=2012-11-05&QueueUrl=" .. urlencode(queue) }
  for i, h in ipairs(handles) do
    form[#form + 1] = "DeleteMessageBatchRequestEntry." .. i .. ".Id=" .. i
    form[#form + 1] = "DeleteMessageBatchRequestEntry." .. i .. ".ReceiptHandle=" .. urlencode(h)
  end
  return wrk.format("POST", "/", query_headers, table.concat(form, "&"))
end

function request()
  if started_us == 0 then started_us = now_us() end
  if first <= last then
    local r = pending[first]
    pending[first] = nil
    first = first + 1
    return r
  end
  return receive_request
end

local function on_receive(body)
  local handles = {}
  if protocol == "json" then
    for h in body:gmatch('"ReceiptHandle"%s*:%s*"(.-[^\\])"') do handles[#handles + 1] = json_unescape(h) end
  else
    for h in body:gmatch("<ReceiptHandle>(.-)</ReceiptHandle>") do handles[#handles + 1] = xml_unescape(h) end
  end
  if #handles == 0 then
    empties = empties + 1
    if empties == stop_after then
      wrk.thread:stop()
      if stop_file then io.open(stop_file, "w"):close() end
    end
    return
  end
  empties = 0
  received = received + #handles
  last = last + 1
  pending[last] = delete_request(handles)
end

local function on_delete(body)
  local ok, bad = 0, 0
  if protocol == "json" then
    local successful = body:match('"Successful"%s*:%s*%[(.-)%]') or ""
    local refused = body:match('"Failed"%s*:%s*%[(.-)%]') or ""
    for _ in successful:gmatch('"Id"') do ok = ok + 1 end
    for _ in refused:gmatch('"Id"') do bad = bad + 1 end
  else
    for _ in body:gmatch("<DeleteMessageBatchResultEntry>") do ok = ok + 1 end
    for _ in body:gmatch("<BatchResultErrorEntry>") do bad = bad + 1 end
  end
  deleted = deleted + ok
  failed = failed + bad
  if ok > 0 then ended_us = now_us() end
end

function response(status, headers, body)
  if status ~= 200 then
    failed = failed + 1
  elseif body:find("DeleteMessageBatchResponse", 1, true) or body:find('"Successful"', 1, true) then
    on_delete(body)
  else
    on_receive(body)
  end
end

local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function done(summary, latency, requests)
  local r, d, f, window = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    r = r + t:get("received")
    d = d + t:get("deleted")
    f = f + t:get("failed")
    window = math.max(window, t:get("ended_us") - t:get("started_us"))
  end
  io.write(string.format("recvdel received=%d deleted=%d failed=%d duration_us=%d\n", r, d, f, window))
end
