from util import helper

print(helper(1))
