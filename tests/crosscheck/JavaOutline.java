// The reference outline of Java files, from javac's own parser (the JDK's compiler tree API).
//
// Run: java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED JavaOutline.java FILE...
// Prints one JSON list per definition: [path, kind, name, line], under coderd's notion of an item:
// classes, records, interfaces, enums, annotation types, their methods, constructors, fields,
// enum constants and annotation elements, and the members of a class body an initializer holds
// (an enum constant's body, an anonymous class assigned to a field); nothing inside a method, an
// initializer block or a lambda, which are code. A declaration is placed on the line javac puts it
// (the tree's position: the name, or the `class`/`interface` keyword before it).
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;
import com.sun.tools.javac.tree.JCTree;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavaOutline {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
            for (String path : args) {
                JavacTask task = (JavacTask) compiler.getTask(
                        null, files, d -> {}, List.of("-proc:none"), null, files.getJavaFileObjects(path));
                for (CompilationUnitTree unit : task.parse()) {
                    new Outline(path, unit.getLineMap()).scan(unit, null);
                }
            }
        }
    }

    static final class Outline extends TreeScanner<Void, Void> {
        private final String path;
        private final LineMap lines;
        /** The names of the classes the scan is in, innermost first. */
        private final Deque<CharSequence> classes = new ArrayDeque<>();

        Outline(String path, LineMap lines) {
            this.path = path;
            this.lines = lines;
        }

        private void print(String kind, CharSequence name, Tree tree) {
            long line = lines.getLineNumber(((JCTree) tree).pos);
            System.out.println("[" + quote(path) + "," + quote(kind) + "," + quote(name.toString()) + "," + line + "]");
        }

        private static String quote(String s) {
            return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        }

        @Override
        public Void visitClass(ClassTree tree, Void unused) {
            if (tree.getSimpleName().length() > 0) {
                print("class", tree.getSimpleName(), tree);
            }
            classes.push(tree.getSimpleName());
            super.visitClass(tree, null);
            classes.pop();
            return null;
        }

        @Override
        public Void visitMethod(MethodTree tree, Void unused) {
            // A constructor is named after its class.
            CharSequence name = tree.getName();
            print("method", name.toString().equals("<init>") ? classes.peek() : name, tree);
            return null;
        }

        @Override
        public Void visitVariable(VariableTree tree, Void unused) {
            print("field", tree.getName(), tree);
            return scan(tree.getInitializer(), null);
        }

        @Override
        public Void visitBlock(BlockTree tree, Void unused) {
            return null;
        }

        @Override
        public Void visitLambdaExpression(LambdaExpressionTree tree, Void unused) {
            return null;
        }
    }
}
