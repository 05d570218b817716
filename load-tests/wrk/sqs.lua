-- SQS requests and answers for the wrk scripts, over AWS Query (protocol "query") or AWS JSON 1.0
-- ("json"): ReceiveMessage, DeleteMessageBatch, SendMessage, and reading receipt handles and batch
-- results out of the answers with patterns (the answers are Sluice's and ElasticMQ's, not arbitrary).
-- Usage: local sqs = dofile(here .. "/sqs.lua")
local sqs = {}

local query_headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }

local function json_headers(action)
  return { ["Content-Type"] = "application/x-amz-json-1.0", ["X-Amz-Target"] = "AmazonSQS." .. action }
end

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
  if not s:find('["\\]') then return s end
  return (s:gsub("\\", "\\\\"):gsub('"', '\\"'))
end

function sqs.receive(protocol, queue, wait_seconds)
  if protocol == "json" then
    return wrk.format("POST", "/", json_headers("ReceiveMessage"),
      '{"QueueUrl":"' .. queue .. '","MaxNumberOfMessages":10,"WaitTimeSeconds":' .. wait_seconds .. "}")
  end
  return wrk.format("POST", "/", query_headers,
    "Action=ReceiveMessage&Version=2012-11-05&MaxNumberOfMessages=10&WaitTimeSeconds=" .. wait_seconds ..
    "&QueueUrl=" .. urlencode(queue))
end

-- body: characters that need no escaping in either protocol ([%w%-_.])
function sqs.send(protocol, queue, body)
  if protocol == "json" then
    return wrk.format("POST", "/", json_headers("SendMessage"), '{"QueueUrl":"' .. queue .. '","MessageBody":"' .. body .. '"}')
  end
  return wrk.format("POST", "/", query_headers,
    "Action=SendMessage&Version=2012-11-05&QueueUrl=" .. urlencode(queue) .. "&MessageBody=" .. body)
end

function sqs.delete_batch(protocol, queue, handles)
  if protocol == "json" then
    local entries = {}
    for i, h in ipairs(handles) do
      entries[i] = '{"Id":"' .. i .. '","ReceiptHandle":"' .. json_escape(h) .. '"}'
    end
    return wrk.format("POST", "/", json_headers("DeleteMessageBatch"),
      '{"QueueUrl":"' .. queue .. '","Entries":[' .. table.concat(entries, ",") .. "]}")
  end
  local form = { "Action=DeleteMessageBatch&Version=2012-11-05&QueueUrl=" .. urlencode(queue) }
  for i, h in ipairs(handles) do
    form[#form + 1] = "DeleteMessageBatchRequestEntry." .. i .. ".Id=" .. i
    form[#form + 1] = "DeleteMessageBatchRequestEntry." .. i .. ".ReceiptHandle=" .. urlencode(h)
  end
  return wrk.format("POST", "/", query_headers, table.concat(form, "&"))
end

-- whether the character at position at is escaped: preceded by an odd number of backslashes
local function escaped(body, at)
  local i = at - 1
  while body:byte(i) == 92 do i = i - 1 end
  return (at - 1 - i) % 2 == 1
end

-- the text between each opening and the closer after it, unescaped when it holds an escape, in order;
-- plain searches (no pattern matching over the whole answer: the client's cost per message counts).
-- A closer '"' ends a JSON string, which may hold an escaped quote: such a quote is skipped.
local function between(body, opening, closer, escape, unescape)
  local out, at = {}, 1
  while true do
    local _, open_end = body:find(opening, at, true)
    if not open_end then return out end
    local close = body:find(closer, open_end + 1, true)
    while close and closer == '"' and escaped(body, close) do close = body:find(closer, close + 1, true) end
    if not close then return out end
    local text = body:sub(open_end + 1, close - 1)
    if text:find(escape, 1, true) then text = unescape(text) end
    out[#out + 1] = text
    at = close + #closer
  end
end

-- the receipt handles of a ReceiveMessage answer, in order
function sqs.handles(protocol, body)
  if protocol == "json" then
    -- both brokers write '"ReceiptHandle":"' without spaces
    return between(body, '"ReceiptHandle":"', '"', "\\", json_unescape)
  end
  return between(body, "<ReceiptHandle>", "</ReceiptHandle>", "&", xml_unescape)
end

function sqs.is_delete_batch_answer(body)
  return body:find("DeleteMessageBatchResponse", 1, true) or body:find('"Successful"', 1, true)
end

-- entries a DeleteMessageBatch answer lists as done and as refused
function sqs.delete_counts(protocol, body)
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
  return ok, bad
end

-- requests waiting to go out, first in, first out (the deletes that answers queue)
function sqs.backlog()
  local items, first, last = {}, 1, 0
  return {
    push = function(r)
      last = last + 1
      items[last] = r
    end,
    pop = function()
      if first > last then return nil end
      local r = items[first]
      items[first] = nil
      first = first + 1
      return r
    end,
  }
end

-- A receive + delete loop on wrk's connections: defines wrk's init(), request() and response().
-- Every connection sends ReceiveMessage (10 messages, WaitTimeSeconds=wait_seconds); an answer with
-- messages queues a DeleteMessageBatch of their receipt handles, the next request to go out on any
-- connection (usually the one that got the answer). Counts the globals received, deleted and failed
-- (non-2xx answers and refused batch entries). Optional hooks: hooks.answer(body), first thing on a
-- receive's answer (before its parsing); hooks.received(n) after it, with the number of messages;
-- hooks.deleted(n) after a delete's answer; hooks.request() before each request goes out.
function sqs.consume(protocol, queue, wait_seconds, hooks)
  received, deleted, failed = 0, 0, 0
  local deletes = sqs.backlog()
  local receive_request
  function init(args)
    receive_request = sqs.receive(protocol, queue, wait_seconds)
  end
  function request()
    if hooks.request then hooks.request() end
    return deletes.pop() or receive_request
  end
  function response(status, headers, body)
    if status ~= 200 then
      failed = failed + 1
    elseif sqs.is_delete_batch_answer(body) then
      local ok, bad = sqs.delete_counts(protocol, body)
      deleted = deleted + ok
      failed = failed + bad
      if hooks.deleted then hooks.deleted(ok) end
    else
      if hooks.answer then hooks.answer(body) end
      local handles = sqs.handles(protocol, body)
      received = received + #handles
      if #handles > 0 then deletes.push(sqs.delete_batch(protocol, queue, handles)) end
      if hooks.received then hooks.received(#handles) end
    end
  end
end

-- wrk's threads, kept by the setup() this defines, and the sum of a global counter over them (for done())
function sqs.keep_threads()
  local threads = {}
  function setup(thread)
    threads[#threads + 1] = thread
  end
  return threads, function(name)
    local n = 0
    for _, t in ipairs(threads) do n = n + t:get(name) end
    return n
  end
end

return sqs
