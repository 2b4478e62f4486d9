// Placeholder until the eval feature lands; replaced by its own implementation.
enum EvalCommand {
    static let usage = "roadsnap eval (not built yet)"
    static func run(_ args: [String]) throws -> Int32 {
        writeStderr("roadsnap eval: not built yet\n")
        return 2
    }
}
