# The reference outline of Ruby files, from Ruby's own parser (Ripper, in the standard library).
#
# Run: ruby rb_outline.rb FILE...  Prints one JSON list per definition: [path, kind, name, line],
# under coderd's notion of an item: modules, classes, `class << self` (named `self`), methods and
# singleton methods, and constants assigned (`NAME = …`), anywhere but inside a method's body
# (blocks included: `included do … end` defines methods too). Placed on the line of the name.
require "ripper"
require "json"

# The source text of a class or module name: `Name`, `Outer::Name`, `::Name`.
def const_name(node)
  case node[0]
  when :const_ref, :top_const_ref then (node[0] == :top_const_ref ? "::" : "") + node[1][1]
  when :const_path_ref then "#{const_name(node[1])}::#{node[2][1]}"
  when :var_ref then node[1][1]
  when :@const then node[1]
  end
end

# The [line] of the last token of a name node (where the name itself is).
def name_line(node)
  return node[2][0] if node[0].is_a?(Symbol) && node[0].to_s.start_with?("@")

  name_line(node.last)
end

def walk(node, path, out)
  return unless node.is_a?(Array)

  case node[0]
  when :class, :module
    kind = node[0] == :class ? "class" : "module"
    out << [path, kind, const_name(node[1]), name_line(node[1])]
    node[2..].each { |child| walk(child, path, out) }
  when :sclass
    out << [path, "class", "self", name_line(node[1])]
    walk(node[2], path, out)
  when :def
    out << [path, "method", node[1][1], node[1][2][0]]
  when :defs
    out << [path, "method", node[3][1], node[3][2][0]]
  when :assign
    target = node[1]
    if target[0] == :var_field && target[1].is_a?(Array) && target[1][0] == :@const
      out << [path, "const", target[1][1], target[1][2][0]]
    end
    walk(node[2], path, out)
  else
    node.each { |child| walk(child, path, out) }
  end
end

ARGV.each do |path|
  tree = Ripper.sexp(File.read(path), path) or abort("#{path}: Ripper cannot parse it")
  out = []
  walk(tree, path, out)
  out.each { |row| puts JSON.generate(row) }
end
