package svca

func A() int { return 1 }
