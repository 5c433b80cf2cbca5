package main

import "os"

func main() {
	if len(os.Args) > 1 && os.Args[1] == guardSubcommand {
		os.Exit(guardMain(os.Args[2:]))
	}
	os.Exit(programMain(os.Args[1:]))
}
