"""Words of a closed kind that tell two facts apart: whose (the speaker, kin, someone
named with 's; a pet; in Chinese a thing's owner by a name of its own at the start,
橘子的驱虫药 / 小黑 驱虫药, or two full names, zh_names.head and opening_name), where (a room
of a home; a side: front / back, upstairs, east / west, northbound, 往南; a floor; in Chinese,
which has no capitals, a city, a bank, a department or a venue; a branch or a street,
gitmem.lifecycle.branches), what (an instrument, a plant, an appliance, what a policy
covers: travel / gadget, 医疗险 / 意外险; a school subject, a kind of bike; in Chinese a
class, a household brand or a car: 飞利浦 / 欧乐B, 宝骏 / 飞度), where software runs (prod /
staging, 生产环境 / 测试环境, iOS / Android, frontend / backend) and when (last year / this
year, 上次 / 这次; a year against a year, an occasion against an occasion).

"Mum takes her pill at 8am" / "dad's tablet: 8am", "Last year's bonus was £3,000" /
"This year's bonus: £3k", 客厅的窗帘花了一千二 / 卧室窗帘1200块: written in two shapes, no
template shows the swap (gitmem.lifecycle.alignment), but each side names another one of
one kind. A kind only one side names is unknown on the other ("GP: Dr Adeyemi" / "Our GP
is Dr Adeyemi"), not different; one named inside the other is one ("my eldest son" /
"my son"); synonyms are one word (闺女 / 女儿, mum / mother, 这次 / 这回, 地库 / 车库).
The speaker ("I", "my", 我) counts as a person only where no relative follows ("my mum's
flight" is the mother's).

samefact reads every text with such synonyms as one word (gitmem.lifecycle.synonyms: 老妈 /
母亲 / 妈妈, 这回 / 这次, mum / mother, lounge / sitting room), and a detail of a thing after 的
as no other thing (`attribute`: 沙发的长度 is the sofa's length)."""

from __future__ import annotations

import os
import re
from functools import lru_cache

from gitmem.lifecycle import attributes, branches, zh_names

# Each kind: {word or phrase: the one it stands for}. English words are matched whole, lower
# case; Chinese ones as they stand, the longest first.
_EN_PEOPLE = {
    **dict.fromkeys("i me my mine myself we us our ours".split(), "me"),
    **dict.fromkeys("mum mom mother mam mummy mommy".split(), "mother"),
    **dict.fromkeys("dad father daddy".split(), "father"),
    **dict.fromkeys("gran nan nana nanna grandma granny grandmother".split(), "grandmother"),
    **dict.fromkeys("grandpa grandad granddad grandfather pop pops poppa gramps".split(), "grandfather"),
    **dict.fromkeys("husband hubby".split(), "husband"), **dict.fromkeys("wife missus".split(), "wife"),
    **{w: w for w in ("son daughter brother sister uncle aunt cousin niece nephew grandson granddaughter "
                      "stepson stepdaughter stepmother stepfather boyfriend girlfriend fiance fiancee partner "
                      "neighbour flatmate housemate boss landlord landlady eldest oldest youngest").split()},
    "neighbours": "neighbour", "auntie": "aunt", "aunty": "aunt", "colleague": "colleague", "friend": "friend",
}
PEOPLE_WORDS = frozenset(_EN_PEOPLE)  # the speaker, kin and household, as words (relatives reads them)
# when, per span: this year against this time is no difference ("今年…二十九个人" / "这次…二十九人")
_EN_WHEN = {span: {f"{w} {form}": f"{w} {span}" for w in ("last", "this", "next") for form in forms}
            for span, forms in (("year", ("year", "yr")), ("month", ("month",)), ("week", ("week", "wk")),
                                ("time", ("time",)), ("term", ("term", "semester")), ("season", ("season",)),
                                ("christmas", ("christmas", "xmas")), ("easter", ("easter",)),
                                *((season, (season,)) for season in ("spring", "summer", "autumn", "winter")))}
_EN_WHEN["day"] = {w: w for w in ("yesterday", "today", "tomorrow")}
# a part of the day with no hour ("The morning session … $42 a day" / "afternoon session – $42/day")
# (named as the Chinese kind names them: "13号 morning" / 11月13日上午 is one morning)
_EN_WHEN["part of day"] = {**dict.fromkeys(("morning", "mornings"), "上午"), **dict.fromkeys(("afternoon", "afternoons"), "下午"),
                           **dict.fromkeys(("evening", "evenings", "tonight", "night", "nights"), "晚上")}
# which way a journey goes (the outbound flight's refund / the return flight's)
_EN_LEGS = {f"{w} {x}": v for w, v in (("outbound", "out"), ("outward", "out"), ("return", "back"),
                                       ("inbound", "back"), ("homeward", "back"))
            for x in ("flight", "flights", "leg", "trip", "journey", "train", "ferry", "sailing", "ticket", "fare")}
_EN_ROOMS = {
    **{w: w for w in ("kitchen bedroom loft attic cellar basement garage garden porch conservatory "
                      "nursery study shed").split()}, **dict.fromkeys(("hall", "hallway"), "hall"),
    **dict.fromkeys(("spare room", "spare bedroom", "box room", "guest room", "guest bedroom"), "spare room"),
    **dict.fromkeys(("master bedroom", "main bedroom"), "master bedroom"),
    **dict.fromkeys(("bathroom", "toilet", "loo", "washroom"), "bathroom"),
    **dict.fromkeys(("living room", "lounge", "sitting room", "front room"), "living room"),
    "dining room": "dining room", "the landing": "landing", "en suite": "en suite", "ensuite": "en suite", "en-suite": "en suite",
    "utility room": "utility room", **dict.fromkeys(("laundry room", "laundry"), "laundry room"),
    "mudroom": "mudroom", "playroom": "playroom", "pantry": "pantry",
}
_EN_FLOORS = {f"{w} floor": f"{w} floor" for w in ("ground", "first", "second", "third", "top", "1st", "2nd", "3rd")}
# Which bike ("The cargo bike's tires…" / "commuter bike tires: 60 psi")
_EN_BIKES = {f"{w} bike": w for w in ("cargo", "commuter", "road", "mountain", "gravel", "e", "electric", "kids'",
                                       "kids", "folding", "tandem")} | {"ebike": "e", "e-bike": "e", "bmx": "bmx"}
_EN_PETS = {w: w for w in "cat dog rabbit hamster guinea tortoise budgie parrot pony horse".split()}
PET_WORDS = frozenset(_EN_PETS)
_EN_INSTRUMENTS = {**{w: w for w in "guitar piano violin viola cello flute clarinet trumpet trombone saxophone "
                      "ukulele harp oboe keyboard harmonium tabla sitar veena recorder".split()},
                   **dict.fromkeys(("drum", "drums", "drum kit"), "drums"), "sax": "saxophone", "uke": "ukulele"}
_ZH_PETS = {"猫": "猫", "猫咪": "猫", "狗": "狗", "狗狗": "狗", "兔子": "兔子", "仓鼠": "仓鼠", "鹦鹉": "鹦鹉", "乌龟": "乌龟"}
# A dog's or a cat's breed, read as its kind of pet too (pepper (dachshund) / Biscuit the cat: two
# pets) and as a breed of its own (馒头（泰迪） / 花卷（比熊）: two dogs)
_CATS = ("siamese ragdoll persian bengal 英短 美短 布偶 橘猫 狸花猫 暹罗").split()
_BREEDS = {w: w for w in ("dachshund labrador spaniel collie terrier poodle beagle greyhound whippet lurcher husky pug "
                          "corgi schnauzer retriever cockapoo cavapoo labradoodle chihuahua 泰迪 比熊 柯基 金毛 拉布拉多 "
                          "哈士奇 柴犬 边牧 博美 雪纳瑞 法斗 萨摩耶").split() + _CATS}
_EN_PETS |= {b: "cat" if b in _CATS else "dog" for b in _BREEDS if b.isascii()}
_ZH_PETS |= {b: "猫" if b in _CATS else "狗" for b in _BREEDS if not b.isascii()}
_EN_SIDES = {**{w: w for w in "front back upstairs downstairs east west north south".split()}, "next door": "next door", "rear": "back",
             # which way a bus or a train goes (northbound / southbound, nthbound in a note)
             **{f"{w}bound": w for w in ("north", "south", "east", "west")}, "nthbound": "north",
             "sthbound": "south",
             **{f"{w}{end}": w for w in ("left", "right") for end in ("-hand side", " side", "-hand", " hand side")},
             # a side of the body (the left eye's drops, the right knee's brace)
             **{f"{w} {part}": w for w in ("left", "right") for part in ("eye", "ear", "knee", "hip", "leg", "arm",
                                                                      "foot", "hand", "shoulder", "wrist", "ankle")}}
_ZH_KIN = {"妈": "妈", "妈妈": "妈", "老妈": "妈", "母亲": "妈", "爸": "爸", "爸爸": "爸", "老爸": "爸", "父亲": "爸",
           **dict.fromkeys("老公 老婆 爱人 丈夫 妻子 媳妇 太太".split(), "配偶"),
           "儿子": "儿子", "女儿": "女儿", "闺女": "女儿", "哥哥": "哥", "姐姐": "姐", "弟弟": "弟", "妹妹": "妹",
           "爷爷": "爷爷", "奶奶": "奶奶", "外公": "外公", "姥爷": "外公", "外婆": "外婆", "姥姥": "外婆",
           "公公": "公公", "老公公": "公公", "婆婆": "婆婆", "岳父": "岳父", "丈人": "岳父", "老丈人": "岳父",
           "岳母": "岳母", "丈母娘": "岳母", "嫂子": "嫂子",
           "姐夫": "姐夫", "弟媳": "弟媳", "妹夫": "妹夫", "侄子": "侄子", "侄女": "侄女", "外甥": "外甥",
           "孙子": "孙子", "孙女": "孙女", "舅舅": "舅", "姑姑": "姑", "叔叔": "叔", "伯伯": "伯",
           # ... and their spouses, another person (三舅 / 三舅妈)
           **dict.fromkeys("舅妈 舅母".split(), "舅妈"), **dict.fromkeys("姑父 姑丈".split(), "姑父"),
           **dict.fromkeys("姨父 姨夫 姨丈".split(), "姨父"), "伯母": "伯母", **dict.fromkeys("婶婶 婶子 婶".split(), "婶"),
           "邻居": "邻居", "房东": "房东", "同事": "同事", "同学": "同学", "朋友": "朋友", "领导": "领导",
           **{f"{x}{y}": f"{x}{y}" for x in "表堂" for y in "哥姐弟妹"},
           **{w: w for w in "老大 老二 老三 老幺 大宝 二宝 三宝".split()},  # children by their order (老大 / 老二, 大宝 / 二宝)
           **{f"{o}{x}": f"{o}{x}" for o in "大二三" for x in "毛妞娃丫"}}  # ... and by order nicknames (大毛 / 二毛)
# 大儿子 / 小儿子, 大姐 / 二姐: a relative with the order among siblings is another relative
# (not 小姐: Miss)
_ZH_ORDER = {f"{o}{k}": f"{o}{v}" for o in "大二三小" for k, v in
             {"儿子": "儿子", "女儿": "女儿", "闺女": "女儿", "哥": "哥", "姐": "姐", "舅": "舅", "姑": "姑",
              "姨": "姨", "伯": "伯", "叔": "叔", "舅妈": "舅妈", "姑父": "姑父", "姨父": "姨父", "姨夫": "姨父",
              "婶": "婶"}.items() if o + k != "小姐"}
# the speaker is "me" in both languages (轮到我 on-call / oncall: me)
_ZH_PEOPLE = {**_ZH_KIN, **_ZH_ORDER, **dict.fromkeys("我 我们 咱 咱们 俺 我家 咱家".split(), "me"),
              "我先生": "配偶"}  # (王先生 is Mr Wang)
_ZH_WHEN = {"year": {w: w for w in "去年 今年 明年 前年 后年".split()},
            # a part of the day with no hour (早上喂五十克 / 晚上6点 50g: two feeds)
            "part of day": {**dict.fromkeys("早上 早晨 清晨 上午".split(), "上午"), "下午": "下午",
                            **dict.fromkeys("晚上 傍晚 夜里".split(), "晚上")},  # 中午: 11:30 is 上午 or 中午
            "week": {"上周": "上周", "这周": "这周", "本周": "这周", "下周": "下周"},
            "month": {"上个月": "上个月", "这个月": "这个月", "本月": "这个月", "下个月": "下个月"},
            "day": {w: w for w in "昨天 今天 明天 前天 后天".split()},
            "term": {"上学期": "上学期", "这学期": "这学期", "本学期": "这学期", "下学期": "下学期"},
            "time": {"上次": "上次", "上回": "上次", "这次": "这次", "这回": "这次", "那次": "那次", "那回": "那次",
                     "下次": "下次", "下回": "下次"}}
_ZH_ROOMS = {"厨房": "厨房", "客厅": "客厅", "卧室": "卧室", "主卧": "主卧", "次卧": "次卧", "儿童房": "儿童房",
             "书房": "书房", "阳台": "阳台", "餐厅": "餐厅", "玄关": "玄关", "阁楼": "阁楼", "地下室": "地下室",
             "储藏室": "储藏室", "院子": "院子", "花园": "花园",
             **dict.fromkeys("卫生间 洗手间 厕所 浴室".split(), "卫生间"),
             "主卫": "主卫", **dict.fromkeys("次卫 客卫 公卫".split(), "次卫"),  # (主卫 / 次卫: two bathrooms)
             **dict.fromkeys("车库 地库 地下车库".split(), "车库")}
_ZH_SIDES = {**{w: w for w in "楼上 楼下 隔壁 对门 前门 后门 东门 西门 南门 北门 东边 西边 南边 北边 东侧 西侧".split()},
             # a quarter of the mouth (左下的智齿 / 右下智齿), a side of town (城西支行 / 城东支行)
             **{w: w for w in "左上 左下 右上 右下 左前 右前 左后 右后".split()}, **{f"城{d}": f"{d}边" for d in "东南西北"},
             # a card and its supplementary one (主卡每个月30G / 副卡 30G)
             **{w: w for w in "主卡 副卡".split()},
             # which way a journey goes (去程的座位 / 回程)
             "去程": "去程", **dict.fromkeys("回程 返程".split(), "回程"),
             **dict.fromkeys("左边 左侧 左手边".split(), "左边"), **dict.fromkeys("右边 右侧 右手边".split(), "右边"),
             # the front or the back one of a pair (前轮的外胎 / 后轮, 前灯 / 后灯)
             **{f"{w}{part}": w for w in "前后" for part in ("轮", "胎", "灯", "刹", "座")},
             # a side of the body (左眼的眼药水 / 右眼)
             **{f"{w}{part}": f"{w}边" for w in "左右" for part in ("眼", "耳", "膝", "腿", "脚", "手", "肩", "臂", "腕")},
             # which way a line goes (4号线往南 / 往北)
             **{f"{v}{d}": f"{d}边" for v in ("往", "向") for d in "东南西北"},
             # a bare direction before a room (北阳台, 南卧) is that side (南边阳台 / 北阳台: two balconies)
             **{f"{d}{r}": f"{d}边" for d in "东南西北" for r in ("阳台", "卧", "窗", "屋", "院")},
             **{f"{d}面": f"{d}边" for d in "东南西北"}}

# What one thing has, not another thing it owns (沙发的长度 / 沙发: one sofa).
_ZH_ATTRIBUTE = re.compile("长度|宽度|高度|厚度|深度|尺寸|大小|重量|价格|价钱|颜色|型号|日期|时间|地址|号码|电话|名字|"
                           "编号|容量|面积")

# Chinese has no capitals: cities (and provinces) and banks are closed lists a reader knows.
_ZH_CITIES = {w: w for w in (
    "北京 上海 天津 重庆 广州 深圳 杭州 南京 苏州 无锡 常州 南通 扬州 徐州 宁波 温州 绍兴 嘉兴 湖州 金华 台州 诸暨 义乌 "
    "合肥 芜湖 福州 厦门 泉州 南昌 济南 青岛 烟台 潍坊 郑州 洛阳 武汉 宜昌 长沙 株洲 南宁 桂林 海口 三亚 成都 绵阳 贵阳 "
    "昆明 丽江 拉萨 西安 兰州 西宁 银川 乌鲁木齐 喀什 呼和浩特 包头 石家庄 保定 唐山 秦皇岛 太原 大同 沈阳 大连 长春 "
    "哈尔滨 东莞 佛山 珠海 汕头 惠州 江门 湛江 香港 澳门 台北 高雄 昆山 常熟 张家港 江阴 慈溪 余姚 乐清 瑞安 晋江 "
    "河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南 四川 贵州 云南 陕西 甘肃 青海 "
    "台湾 内蒙古 广西 西藏 宁夏 新疆").split()}
_ZH_INSTRUMENTS = {w: w for w in "钢琴 小提琴 大提琴 吉他 架子鼓 古筝 二胡 长笛 萨克斯 尤克里里 琵琶 单簧管 电子琴 口琴 竹笛".split()}
# A device one owns ("phone case" / "tablet case", 手机 / 平板: two things)
_EN_DEVICES = {**dict.fromkeys(("phone", "mobile", "iphone"), "phone"), **dict.fromkeys(("tablet", "ipad"), "tablet"),
               **dict.fromkeys(("laptop", "macbook"), "laptop"), "smartwatch": "watch",
               **dict.fromkeys(("switch", "nintendo switch", "xbox", "playstation", "ps5", "ps4"), "console")}
# Whose a thing is: work or personal ("work github (acme-org) 2FA" / "my personal GitHub account")
_EN_WORK_OR_PERSONAL = {f"{w} {x}": w for w in ("work", "personal") for x in (
    "email", "laptop", "phone", "mobile", "account", "github", "gitlab", "calendar", "slack", "card", "credit card",
    "computer", "car", "number")}
_ZH_DEVICES = {"手机": "手机", "平板": "平板", "笔记本电脑": "电脑", "笔记本": "电脑", "手表": "手表", "耳机": "耳机"}
# Which account (savings / current, 储蓄户口 / 往来户口)
_EN_ACCOUNTS = {f"{w} account": w for w in ("savings", "current", "checking", "joint", "business")} | {
    f"{w} acct": w for w in ("savings", "current", "checking", "joint")} | {
    # ... and a tax-free wrapper, which is no savings account ("The easy-access savings account
    # at Harbour Mutual pays 4.1%" / "Harbour Mutual cash ISA: 4.1%"), by its kind (an ISA
    # alone says none: "the brackenfield isa" is the stocks and shares one)
    "cash isa": "cash isa", **dict.fromkeys(("stocks and shares isa", "stocks & shares isa", "s&s isa", "s&s"), "s&s isa"),
    **dict.fromkeys(("lifetime isa", "lisa"), "lifetime isa"), **dict.fromkeys(("junior isa", "jisa"), "junior isa")}
# ... or what the money is put by for ("Holiday saver at Tidewater Bank" / "The emergency fund in our
# Tidewater Bank account")
_EN_FUNDS = {f"{w} {x}": w for w in ("emergency", "holiday", "rainy day", "house deposit", "wedding", "christmas",
                                      "car", "travel") for x in ("fund", "saver", "savings", "pot")}
_ZH_ACCOUNTS = {**dict.fromkeys("储蓄户口 储蓄账户 储蓄卡".split(), "储蓄"), **dict.fromkeys("往来户口 支票户口 支票账户".split(), "往来")}
# Brands a household names (not 美的 in 很美的, 老板 the boss, 苹果 the fruit, 大众 the public)
_ZH_BRANDS = {w: w for w in ("飞利浦 欧乐B 九阳 格力 海尔 小米 华为 苏泊尔 戴森 松下 西门子 博世 小天鹅 方太 荣耀 "
                             "比亚迪 特斯拉 丰田 本田 宝马 奔驰 奥迪 蔚来 小鹏 海信 创维 TCL 索尼 佳能 尼康 大疆").split()}
_ZH_BRANDS |= {f"美的{x}": "美的" for x in ("那", "这", "牌", "空调", "冰箱", "洗衣机", "电饭煲", "微波炉", "风扇")}
# ... and cars by their make or model (家里那辆宝骏 / 老婆的飞度: two cars)
_ZH_BRANDS |= {w: w for w in ("宝骏 五菱 吉利 长安 奇瑞 哈弗 红旗 理想 领克 极氪 问界 大众 日产 别克 雪佛兰 福特 现代 起亚 "
                              "马自达 斯柯达 沃尔沃 飞度 思域 雅阁 卡罗拉 凯美瑞 轩逸 朗逸 速腾 帕萨特 宝来 途观 博越 星越 帝豪 "
                              "缤越 汉兰达 逍客 奇骏").split()}
# Plants a home or a plot grows (月季 / 茉莉: two pots)
_ZH_PLANTS = {w: w for w in ("月季 玫瑰 茉莉 绿萝 吊兰 多肉 兰花 发财树 富贵竹 君子兰 栀子 仙人掌 薄荷 番茄 辣椒 "
                             "黄瓜 草莓 茄子 豆角 生菜 韭菜 向日葵 绣球 三角梅 龟背竹 琴叶榕 虎皮兰 文竹 橡皮树 "
                             "散尾葵 龙血树").split()} | {"西红柿": "番茄", "九重葛": "三角梅", "茉莉花": "茉莉"}
_EN_APPLIANCES = {**{w: w for w in ("washing machine", "tumble dryer", "dishwasher", "oven", "hob", "boiler",
                                     "microwave", "kettle", "toaster", "air fryer", "coffee machine", "dehumidifier")},
                  "washer": "washing machine", "dryer": "tumble dryer", **dict.fromkeys(("hoover", "vacuum"), "hoover"),
                  # a fridge-freezer is often just "the fridge"
                  **dict.fromkeys(("fridge", "freezer", "fridge freezer", "fridge-freezer"), "fridge")}
_ZH_APPLIANCES = {w: w for w in ("烤箱 制冰机 冰箱 洗衣机 烘干机 洗碗机 微波炉 热水器 油烟机 抽油烟机 燃气灶 电饭煲 咖啡机 "
                                 "扫地机器人 净水器 空气净化器 除湿机 空调 洗地机 榨汁机 豆浆机").split()}
# A sport or a game one plays ("badminton court Sat 2-4" / "table tennis table Saturdays 2-4pm")
_EN_SPORTS = {w: w for w in ("badminton tennis squash football netball rugby cricket hockey golf basketball "
                             "volleyball snooker darts chess").split()} | {
    "table tennis": "table tennis", "ping pong": "table tennis", "ping-pong": "table tennis", "footy": "football"}
# Which car, by its make and model, a model as "make/model" ("the corolla's next service is due
# at 36,000 km" / "The Tucson is due its next service at 36,000 km", the Civic / the CR-V: two;
# "the Mazda" / "the CX-5": one, a make against its own model)
_MODELS = {"toyota": "corolla camry prius rav4 rav-4 yaris hilux aygo", "honda": "civic jazz cr-v crv accord hr-v",
           "ford": "focus fiesta kuga puma ranger mondeo f-150 transit", "volkswagen": "golf polo passat tiguan t-roc id.3 id3",
           "nissan": "qashqai juke leaf micra x-trail navara", "hyundai": "tucson i10 i20 i30 kona ioniq",
           "kia": "sportage ceed picanto niro sorento rio", "mazda": "cx-5 cx5 cx-3 cx-30 mazda3 mazda2 mx-5 mx5",
           "subaru": "outback forester impreza crosstrek", "vauxhall": "corsa astra zafira mokka",
           "skoda": "octavia fabia superb kodiaq", "renault": "clio megane captur zoe", "suzuki": "swift vitara jimny",
           "maruti": "baleno"}
_EN_CARS = {**{w: w for w in ("toyota honda ford nissan hyundai kia mazda subaru tesla bmw audi skoda renault "
                              "peugeot citroen vauxhall opel fiat volvo mitsubishi suzuki jeep lexus holden "
                              "chevrolet maruti").split()},
            **dict.fromkeys(("vw", "volkswagen"), "volkswagen"), **dict.fromkeys(("mercedes", "merc"), "mercedes"),
            "chevy": "chevrolet", "land rover": "land rover", "range rover": "land rover",
            "land cruiser": "toyota/landcruiser", "santa fe": "hyundai/santafe",
            **{m: f"{make}/{re.sub(r'[-.]', '', m)}" for make, ms in _MODELS.items() for m in ms.split()}}
# Which bill a payment is ("Our council tax Direct Debit comes out … on the 1st" / "water bill DD
# - 1st"), which bin goes out, which practitioner one sees (the dentist / the orthodontist)
_EN_BILLS = {**dict.fromkeys(("council tax", "ctax"), "council tax"),
             **dict.fromkeys(("water rates", "water bill", "water and sewerage"), "water"),
             **dict.fromkeys(("gas bill", "electricity bill", "electric bill", "power bill", "energy bill"), "energy"),
             **dict.fromkeys(("broadband", "internet bill", "wifi bill"), "broadband"),
             **dict.fromkeys(("tv licence", "tv license", "telly licence"), "tv licence"),
             **dict.fromkeys(("phone bill", "mobile bill", "phone contract"), "phone"),
             **{w: w for w in ("mortgage", "service charge", "ground rent", "strata levy", "body corporate")}}
_EN_BINS = {**dict.fromkeys(("recycling bin", "recycling", "blue bin"), "recycling"),
            **dict.fromkeys(("garden waste", "green bin", "garden bin"), "garden"),
            **dict.fromkeys(("general waste", "black bin", "rubbish bin", "landfill bin"), "general"),
            **dict.fromkeys(("food waste", "food caddy", "caddy"), "food"), "glass bin": "glass"}
_EN_PRACTITIONERS = {**dict.fromkeys(("dentist", "dental"), "dentist"), **dict.fromkeys(("orthodontist", "ortho"), "orthodontist"),
                     "hygienist": "hygienist", **dict.fromkeys(("optician", "optometrist", "eye test"), "optician"),
                     **dict.fromkeys(("physio", "physiotherapist", "physiotherapy"), "physio"),
                     **dict.fromkeys(("osteo", "osteopath"), "osteopath"), **dict.fromkeys(("chiro", "chiropractor"), "chiropractor"),
                     **dict.fromkeys(("podiatrist", "chiropodist"), "podiatrist"), "audiologist": "audiologist",
                     "dermatologist": "dermatologist"}
# Chinese papers, funds, tests, wallets and subscriptions a household keeps apart (户口本 / 房产证
# in one safe; 社保 / 公积金 on one base; 科目一 / 科四 at one score; 余额宝 / 零钱通 at one balance)
_ZH_PAPERS = {w: w for w in "户口本 房产证 身份证 护照 结婚证 驾驶证 行驶证 毕业证 学位证 出生证明 社保卡 医保卡 港澳通行证 "
              "居住证 不动产权证".split()} | {"驾照": "驾驶证", "房本": "房产证"}
_ZH_FUNDS = {**dict.fromkeys("社保 社会保险".split(), "社保"), **dict.fromkeys("公积金 住房公积金".split(), "公积金"),
             "医保": "医保", **dict.fromkeys("养老金 养老保险".split(), "养老"), "企业年金": "年金", "个人养老金": "个人养老金"}
_ZH_TESTS = {**{f"科目{n}": v for n, v in zip("一二三四", "1234")}, **{f"科{n}": v for n, v in zip("一二三四", "1234")}}
_ZH_WALLETS = {**dict.fromkeys("支付宝 余额宝".split(), "支付宝"), **dict.fromkeys("微信 零钱通 微信零钱".split(), "微信"),
               "云闪付": "云闪付", "京东金融": "京东金融"}
_ZH_SUBSCRIPTIONS = {w: w for w in "腾讯视频 爱奇艺 优酷 芒果TV 网易云音乐 QQ音乐 喜马拉雅 B站大会员 百度网盘 WPS会员 "
                     "Keep会员 京东PLUS 88VIP".split()}
_ZH_VEHICLES = {w: w for w in "小轿车 面包车 货车 摩托车 自行车 皮卡 房车".split()} | dict.fromkeys(
    "电动车 电瓶车 电动自行车 电驴".split(), "电动车")
# Which community group meets ("The residents' association meets upstairs at Carlton CC…" /
# "Neighbourhood Watch - 1st Mon, 7.30pm, Carlton CC upstairs room": two groups)
_EN_GROUPS = {**dict.fromkeys(("residents' association", "residents association", "residents' assoc", "residents assoc",
                               "tenants' association", "tenants association"), "residents"),
              **dict.fromkeys(("neighbourhood watch", "neighborhood watch"), "watch"),
              **dict.fromkeys(("pta", "pto", "parents' association", "parent teacher association", "p&c"), "parents"),
              **dict.fromkeys(("parish council", "town council", "community council"), "council"),
              **{w: w for w in ("book club", "running club", "choir", "scouts", "cubs", "beavers", "brownies", "guides",
                                "rotary", "lions club", "u3a", "men's shed", "friends group", "food bank", "litter pickers",
                                "repair cafe", "allotment society", "bridge club", "chess club", "rugby club", "cricket club",
                                "football club", "toddler group", "bowls club", "quiz team")}}
_ZH_SPORTS = {w: w for w in "羽毛球 乒乓球 篮球 足球 网球 排球 高尔夫 台球 壁球 围棋 象棋".split()}
# What a policy covers ("travel insurance" / "gadget insurance": two policies)
_EN_COVER = {f"{w} {x}": w for w in ("travel gadget home car motor pet contents buildings life health dental phone "
                                     "breakdown boiler van bike landlord").split() for x in ("insurance", "ins", "cover", "policy")}
_ZH_COVER = {**dict.fromkeys("医疗险 医疗保险 百万医疗".split(), "医疗"), **dict.fromkeys("意外险 意外保险".split(), "意外"),
             **dict.fromkeys("重疾险 重疾 重大疾病险 重大疾病保险".split(), "重疾"), "防癌险": "防癌",
             **dict.fromkeys("寿险 人寿保险".split(), "寿险"), **dict.fromkeys("车险 车辆保险 汽车保险".split(), "车险"),
             "交强险": "交强险", "家财险": "家财", **dict.fromkeys("旅游险 旅行险 旅游保险".split(), "旅行"),
             "养老险": "养老"}
# Which department (财务部的韩露 / 设计部彭博), which class or activity (书法班 / 国画班), which
# venue, a place as a room is (健身房的年卡 / 游泳馆年卡, 地下车库 / 健身房储物柜)
_ZH_DEPARTMENTS = {f"{w}{end}": w for w in "财务 设计 销售 人事 技术 市场 行政 法务 运营 产品 研发 客服 采购 品质 质量 "
                   "后勤 工程 测试 财会".split() for end in ("部", "组", "科")}
_ZH_ACTIVITIES = {w: w for w in "书法 国画 舞蹈 美术 编程 游泳 围棋 奥数 跆拳道 画画 街舞 口才 乐高 武术 滑冰 轮滑 击剑 "
                  "素描 播音 主持 拉丁舞 芭蕾 声乐 合唱".split()}
_ZH_VENUES = {w: w for w in "健身房 游泳馆 体育馆 图书馆 博物馆 电影院 少年宫 科技馆 美术馆 体育中心 奥体中心 文化宫 "
              "羽毛球馆 篮球馆 网球场 溜冰场".split()}
_EN_PLANTS = {f"{w}{end}": w for w in ("rose jasmine tomato basil mint orchid lavender dahlia tulip courgette "
                                        "lettuce potato bean fern hydrangea clematis geranium fuchsia sunflower "
                                        "chilli cucumber carrot onion leek pumpkin monstera").split()
                                       + ["sweet pea", "fiddle-leaf fig", "peace lily", "spider plant", "snake plant",
                                          "apple tree", "plum tree", "pear tree", "cherry tree", "fig tree",
                                          "lemon tree", "olive tree"]
              for end in ("", "es" if w.endswith("o") else "s")} | {
    # plurals the rule above does not make, and other spellings
    "chillies": "chilli", "chili": "chilli", "chilies": "chilli", "chilis": "chilli",
    **{f: w for w in ("strawberry", "raspberry", "blueberry") for f in (w, w[:-1] + "ies")}}
_ZH_BANKS = {**dict.fromkeys(("建行", "建设银行"), "建行"), **dict.fromkeys(("工行", "工商银行"), "工行"),
             **dict.fromkeys(("农行", "农业银行"), "农行"), **dict.fromkeys(("中行", "中国银行"), "中行"),
             **dict.fromkeys(("招行", "招商银行"), "招行"), **dict.fromkeys(("交行", "交通银行"), "交行"),
             **dict.fromkeys(("邮储", "邮政储蓄", "邮储银行"), "邮储"),
             **{w: w for w in "浦发 民生银行 兴业银行 平安银行 中信银行 光大银行 华夏银行 广发银行 北京银行 上海银行".split()},
             "兴业": "兴业银行", "中信": "中信银行", "光大": "光大银行", "广发": "广发银行"}

# A school subject ("Ava's math test" / "ava science test": two tests)
_EN_SUBJECTS = {**dict.fromkeys(("math", "maths", "mathematics"), "maths"),
                **{w: w for w in "science english history geography chemistry physics biology french spanish "
                   "german latin calculus algebra geometry statistics economics psychology".split()}}
_ZH_SUBJECTS = {w: w for w in "数学 语文 英语 科学 物理 化学 生物 历史 地理 政治".split()}
# Where software runs, in an engineer's notes ("staging: rate_limit=600/min" / "The prod API
# gateway rate limit is 600", "Android 端 5.8.2" / "iOS v5.8.2", frontend / backend repo)
_EN_ENVIRONMENTS = {**dict.fromkeys(("prod", "production"), "prod"), "staging": "staging",
                    "dev": "dev", **dict.fromkeys(("preprod", "pre-prod"), "preprod"),
                    "uat": "uat", "sandbox": "sandbox"}
_ZH_ENVIRONMENTS = {**dict.fromkeys("生产环境 线上 正式环境".split(), "prod"), **dict.fromkeys("测试环境 预发 预发布".split(), "staging"),
                    "开发环境": "dev", "灰度": "灰度"}
_PLATFORMS = {"ios": "ios", "android": "android", "安卓": "android", "web": "web", "windows": "windows",
              "macos": "macos", "linux": "linux"}
_TIERS = {**dict.fromkeys(("frontend", "front-end", "front end", "前端"), "frontend"),
          **dict.fromkeys(("backend", "back-end", "back end", "后端"), "backend")}

_KINDS_EN = (("people", _EN_PEOPLE), *_EN_WHEN.items(), ("room", _EN_ROOMS), ("side", _EN_SIDES), ("leg", _EN_LEGS),
             ("floor", _EN_FLOORS), ("pet", _EN_PETS), ("instrument", _EN_INSTRUMENTS), ("plant", _EN_PLANTS),
             ("appliance", _EN_APPLIANCES), ("cover", _EN_COVER), ("subject", _EN_SUBJECTS), ("sport", _EN_SPORTS),
             ("device", _EN_DEVICES), ("account", _EN_ACCOUNTS), ("environment", _EN_ENVIRONMENTS),
             ("platform", _PLATFORMS), ("tier", _TIERS), ("bike", _EN_BIKES),
             ("work or personal", _EN_WORK_OR_PERSONAL), ("fund", _EN_FUNDS), ("group", _EN_GROUPS), ("car", _EN_CARS),
             ("bill", _EN_BILLS), ("bin", _EN_BINS), ("practitioner", _EN_PRACTITIONERS),
             ("breed", {b: b for b in _BREEDS if b.isascii()}))
_KINDS_ZH = (("people", _ZH_PEOPLE), *_ZH_WHEN.items(), ("room", _ZH_ROOMS), ("side", _ZH_SIDES), ("pet", _ZH_PETS),
             ("city", _ZH_CITIES), ("bank", _ZH_BANKS), ("instrument", _ZH_INSTRUMENTS), ("brand", _ZH_BRANDS),
             ("plant", _ZH_PLANTS), ("subject", _ZH_SUBJECTS), ("appliance", _ZH_APPLIANCES), ("sport", _ZH_SPORTS),
             ("device", _ZH_DEVICES), ("account", _ZH_ACCOUNTS), ("environment", _ZH_ENVIRONMENTS),
             ("platform", _PLATFORMS), ("tier", _TIERS), ("cover", _ZH_COVER),
             ("department", _ZH_DEPARTMENTS), ("activity", _ZH_ACTIVITIES), ("room", _ZH_VENUES),
             ("paper", _ZH_PAPERS), ("fund", _ZH_FUNDS), ("test", _ZH_TESTS), ("wallet", _ZH_WALLETS),
             ("subscription", _ZH_SUBSCRIPTIONS), ("vehicle", _ZH_VEHICLES),
             ("breed", {b: b for b in _BREEDS if not b.isascii()}))


def _pattern(words: dict[str, str], cjk: bool) -> re.Pattern[str]:
    alts = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(f"(?:{alts})" if cjk else rf"\b(?:{alts})\b")


_EN = [(kind, words, _pattern(words, False)) for kind, words in _KINDS_EN]
_ZH = [(kind, words, _pattern(words, True)) for kind, words in _KINDS_ZH]
_EN_RELATIVE = re.compile(r"\b(?:my|our)\s+(?=(?:[a-z]+\s+)?(?:" + "|".join(
    w for w, v in _EN_PEOPLE.items() if v != "me") + r")\b)")
_ZH_RELATIVE = re.compile(r"(?:我|咱|俺)(?:们)?(?:的|家)?(?=" + "|".join(
    sorted((w for w in {**_ZH_KIN, **_ZH_ORDER} if w not in ("邻居", "房东")), key=len, reverse=True)) + ")")
_YEAR_WORD = frozenset("终度龄级纪薪假会货初底中")  # 年终, 年度, 年龄…: words that begin with 年
_EN_OWNER = re.compile(r"\b([A-Z][a-z]+)['’]s\b")


@lru_cache(maxsize=65536)
def named(text: str) -> dict[str, frozenset[str]]:
    """Per kind, the words of that kind `text` names (each as the one it stands for)."""
    out: dict[str, set[str]] = {}
    zh = _ZH_RELATIVE.sub("", text)
    for kind, words, pattern in _ZH:
        for m in pattern.finditer(zh):
            if m[0] in ("后年", "前年") and zh[m.end():m.end() + 1] in _YEAR_WORD:
                continue  # 税后年终奖: after tax, the year-end bonus (not the year after next)
            out.setdefault(kind, set()).add(words[m[0]])
    nick = zh_names.nickname(text)
    if nick:  # 皓皓 / 妹妹: two children of one house
        out.setdefault("people", set()).add(nick)
    low = _EN_RELATIVE.sub("", text.lower().replace("’", "'"))
    for kind, words, pattern in _EN:
        for m in pattern.finditer(low):
            out.setdefault(kind, set()).add(words[m[0]])
    return {k: frozenset(_ACROSS.get(w, w) for w in v) for k, v in out.items()}


# One person or subject said in Chinese and in English, where the two words mean one thing
# ("mom 降压药 amlodipine" / "妈妈每天吃氨氯地平", "Grade 9 math midterm" / 初三数学期中): the
# English word. Not 老公 / 老婆 (配偶: husband or wife), 哥 / 弟 (a brother, older or younger).
_ACROSS = {"妈": "mother", "爸": "father", "儿子": "son", "女儿": "daughter", "邻居": "neighbour",
           "房东": "landlord", "同事": "colleague", "朋友": "friend", "爷爷": "grandfather", "奶奶": "grandmother",
           "数学": "maths", "英语": "english", "科学": "science", "物理": "physics", "化学": "chemistry",
           "生物": "biology", "历史": "history", "地理": "geography"}


def owners(text: str) -> frozenset[str]:
    """Who owns what `text` says: an English name with 's, a Chinese person by surname (老王)."""
    return frozenset(m[1].lower() for m in _EN_OWNER.finditer(text)) - _EN_PEOPLE.keys() \
        | {m[0] for m in zh_names.SHORT_NAME.finditer(text)}


def differ(a: str, b: str, beside_values: bool = False) -> str | None:
    """The kind of which each text names one the other does not ("people", "year", "room",
    "side", ...), or None; `beside_values`: the part of the day, which goes with a clock
    time, left unread (上午九点 / 下午两点: one lesson moved). Someone named with 's is
    another person than the speaker ("My flight lands at 3pm" / "Jake's plane gets in at
    15:00"); two names are the name reader's (samefact), which knows short forms (Roz /
    Rosamund). The speaker's thing for someone is theirs ("The quilt I'm making for Esme"
    / "Esme's quilt")."""
    na, nb = named(a), named(b)
    for kind in na.keys() & nb.keys() - ({"part of day"} if beside_values else set()):
        only_a, only_b = na[kind] - nb[kind], nb[kind] - na[kind]
        if kind == "car":  # a make against one of its models is that car
            only_a = {v for v in only_a if not any(v.startswith(w + "/") or w.startswith(v + "/") for w in nb[kind])}
            only_b = {v for v in only_b if not any(v.startswith(w + "/") or w.startswith(v + "/") for w in na[kind])}
        if kind == "room":  # 奥体中心 / 奥体游泳馆: a venue by its short form
            only_a = {v for v in only_a if v.isascii() or v[:2] not in b}
            only_b = {v for v in only_b if v.isascii() or v[:2] not in a}
        if only_a and only_b:
            return kind
    for x, nx, y, ny in ((a, na, b, nb), (b, nb, a, na)):
        others = {o for o in owners(y) if not re.search(rf"\b{re.escape(o)}\b", x, re.I)}
        if nx.get("people") == {"me"} and "me" not in ny.get("people", ()) and others and not owners(x):
            return "people"
    if branches.differ(a, b):
        return "branch"
    # Two Chinese texts opening with two people by their full names (陈可馨 舞蹈课… /
    # 刘思琪这学期的舞蹈课…, 柯晓峰 / 柯晓岚: one surname, two people)
    pa, pb = zh_names.opening_name(a), zh_names.opening_name(b)
    if pa and pb and pa != pb:
        return "people"
    # ... or with one thing of two owners by their names (橘子的驱虫药… / 小黑 驱虫药…: two
    # pets), the names sharing no character and not one relative said two ways (老公 / 爱人),
    # two notes' heads neither named in the other text (初三 数学期中… / 期中考 数学…: 期中 is no owner).
    ha, hb = zh_names.head(a), zh_names.head(b)
    named_in_other = bool(ha and hb and (ha[0][:2] in b or hb[0][:2] in a))
    ha, hb = ha or (hb and zh_names.run_on_head(a, b)), hb or (ha and zh_names.run_on_head(b, a))
    if ha and hb and ha[1] == hb[1] and not set(ha[0]) & set(hb[0]) and not named_in_other \
            and not ((ka := named(ha[0])) and ka == named(hb[0])):
        return "owner"
    # ... or one role and two names after it (伴娘小蕊 礼服 / 伴娘佳佳 礼服: two bridesmaids)
    if ha and hb and ha[1] == hb[1]:
        k = len(os.path.commonprefix([ha[0], hb[0]]))
        ra, rb = ha[0][k:], hb[0][k:]
        if k >= 2 and len(ra) >= 2 and len(rb) >= 2 and not set(ra) & set(rb):
            return "owner"
    # ... or one thing and two things said of it (…302的新租客… / …302的热水器…)
    if attributes.differ(a, b):
        return "attribute"
    return None


def attribute(words: str) -> bool:
    """Whether Chinese `words` after 的 name a measure or a detail of the thing before them
    (长度, 型号, 地址), not someone or something it has."""
    return bool(_ZH_ATTRIBUTE.match(words.lstrip("的")))
