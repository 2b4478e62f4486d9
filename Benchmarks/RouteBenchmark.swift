// Placeholder until this benchmark lands.
enum RouteBenchmark {
    static func run(_ args: [String]) throws { print("not built yet") }
}
