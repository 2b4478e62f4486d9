// Placeholder until the navigate feature lands; replaced by its own implementation.
enum NavigateCommand {
    static let usage = "roadsnap navigate (not built yet)"
    static func run(_ args: [String]) throws -> Int32 {
        writeStderr("roadsnap navigate: not built yet\n")
        return 2
    }
}
