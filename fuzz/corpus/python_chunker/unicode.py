# 模块说明：这里的注释是中文 🐍🚀
GREETING = "你好，世界 🌍"
FAREWELL = "再见 👋 — à bientôt"


# 计算问候语 ✨
def greet(name):
    """返回问候语 🙂"""
    return f"{GREETING}, {name} 🎉"


class Café:
    """Ünïcödé names 🍰"""

    def crème(self):
        return "brûlée 🔥"
