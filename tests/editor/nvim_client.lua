-- Headless Neovim's built-in LSP client against `coderd lsp` (tests/it/editor.rs runs it):
-- opens lib/broken.rb, waits for the relayed diagnostic, asks for document symbols of
-- lib/shapes.rb, workspace symbols and `coderd/map`, and writes what it got to $OUT as JSON.
-- Environment: CODERD (the binary), SOCKET (the daemon's), ROOT (the workspace), OUT.
local env = vim.env
local out = {}
local function finish()
  local file = io.open(env.OUT, 'w')
  file:write(vim.fn.json_encode(out))
  file:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  local id = vim.lsp.start_client({
    name = 'coderd',
    cmd = { env.CODERD, '--socket', env.SOCKET, 'lsp', '--no-start' },
    root_dir = env.ROOT,
  })
  assert(id, 'the client did not start')
  vim.cmd('edit ' .. env.ROOT .. '/lib/broken.rb')
  local broken = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(broken, id)
  assert(vim.wait(30000, function()
    return #vim.diagnostic.get(broken) > 0
  end, 50), 'no diagnostic was published for lib/broken.rb')
  local found = vim.diagnostic.get(broken)[1]
  out.diagnostic = { message = found.message, line = found.lnum }

  local client = vim.lsp.get_client_by_id(id)
  vim.cmd('edit ' .. env.ROOT .. '/lib/shapes.rb')
  local shapes = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(shapes, id)
  local uri = vim.uri_from_bufnr(shapes)
  local symbols = client.request_sync('textDocument/documentSymbol', { textDocument = { uri = uri } }, 30000, shapes)
  assert(symbols and not symbols.err, 'documentSymbol failed: ' .. vim.inspect(symbols))
  out.document_symbols = {}
  for _, symbol in ipairs(symbols.result) do
    local children = {}
    for _, child in ipairs(symbol.children or {}) do
      table.insert(children, child.name)
    end
    table.insert(out.document_symbols, { name = symbol.name, children = children })
  end

  local workspace = client.request_sync('workspace/symbol', { query = 'Square' }, 30000, shapes)
  assert(workspace and not workspace.err, 'workspace/symbol failed: ' .. vim.inspect(workspace))
  local first = workspace.result[1]
  out.workspace_symbol = { name = first.name, uri = first.location.uri, line = first.location.range.start.line }

  local map = client.request_sync('coderd/map', { budget = 2000, mentions = { 'total' } }, 30000, shapes)
  assert(map and not map.err, 'coderd/map failed: ' .. vim.inspect(map))
  out.map = { text = map.result.map, items = #map.result.items }
  for _, item in ipairs(map.result.items) do
    if item.name == 'total' then
      out.map.total = { uri = item.location.uri, line = item.location.range.start.line }
    end
  end
  client.stop()
end)
if not ok then
  out.error = tostring(err)
end
finish()
