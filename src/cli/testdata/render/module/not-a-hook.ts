/** Not a hook module: its default export is neither an app nor a function returning one. */
export default { port: 8080 };
