// The public instance methods of the classes src/index.ts exports, read with the TypeScript compiler API from
// the source (no build needed): for each class, its own and inherited methods, leaving out what is private,
// protected, `#private`, static or marked `@internal`, and members that are not methods (getters, fields).
// A method declared in an interface merged with the class counts as the class's.
import path from 'node:path';
import ts from 'typescript';

/**
 * @param {string} root the repository root
 * @returns {Map<string, string[]>} exported class name → its public method names, sorted
 */
export function publicMethods(root) {
  const entry = path.join(root, 'src', 'index.ts');
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`cannot read ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry} is not a module`);
  const classes = new Map();
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    if (!(symbol.flags & ts.SymbolFlags.Class)) continue;
    const methods = [];
    for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
      const decl = member.valueDeclaration ?? member.declarations?.[0];
      // A method signature: one merged in from an interface of the same name (as the client's event methods are).
      if (!decl || !(ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl)) || !ts.isIdentifier(decl.name)) continue;
      const flags = ts.getCombinedModifierFlags(decl);
      if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Static)) continue;
      if (ts.getJSDocTags(decl).some((tag) => tag.tagName.text === 'internal')) continue;
      methods.push(member.name);
    }
    classes.set(exported.name, methods.sort());
  }
  return classes;
}
