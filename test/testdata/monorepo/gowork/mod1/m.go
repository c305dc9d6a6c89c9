package mod1
