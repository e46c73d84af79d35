"""The offline annotator's English and Mandarin pattern tables (issue 34): what ``_features`` holds for Japanese.

Each language names the sentence forms that tell the acts apart in its own words: English offers ("Would you like
me to …?"), done actions ("I've set …"), promises ("I'll …"), requests ("please …"), advice ("make sure …");
Mandarin's 要不要 / 需要我…吗 offers, 了 for completed actions, 会 / 马上 / 这就 promises, 请 / 麻烦 requests, 建议 /
记得 advice, the particles 吗 吧 呢. The names the code reads (``ends_question_mark``, ``ends_comma``, the user's
``user_question_mark`` / ``user_wh`` / ``user_info_request`` / ``user_final_question`` / ``user_command``) exist
in every language; :class:`~voxeval.annotate._patterns.PatternSet` says which pattern plays the "done" and
"request" roles of the boundary model. Pure data: imports nothing of voxeval.
"""

from __future__ import annotations

WHOLE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("ends_question_mark", r"[？?][」』）)”\"']?\s*$"),
    ("ends_exclamation", r"[！!]\s*$"),
    ("ends_comma", r"[、，,；;]\s*$"),
    ("no_final_punct", r"[^\s。．.、，,？?！!…〜~」』）)]\s*$"),
)
"""Patterns over the whole segment (its punctuation), shared by English and Mandarin."""

EN_SEGMENT: tuple[tuple[str, str], ...] = (
    *WHOLE_PATTERNS,
    ("wh_start", r"(?i)^(?:so,?\s+)?(?:what|when|where|who|which|how|why)\b"),
    ("aux_start", r"(?i)^(?:do|does|did|is|are|was|were|can|could|would|will|shall|should|may|have|has)\b"),
    ("offer", r"(?i)\b(?:shall i|should i|want me to|would you like me to|do you want me to|like me to|can i)\b"),
    ("would_you_like", r"(?i)\b(?:would you like|do you want|how about|what about|would you prefer|want to)\b"),
    ("confirm", r"(?i)\b(?:is that (?:right|correct|ok|okay)|did you mean|do you mean|to confirm|confirm|right)$"),
    ("please", r"(?i)\bplease\b"),
    (
        "imperative_start",
        r"(?i)^(?:please\s+|just\s+)?(?:make sure|try|check|turn|go|open|tap|press|say|tell|let me know|keep|"
        r"remember|don't|do not|bring|take|consider|put|grab|give|leave|wear|drink|call|plug|restart|unplug)\b",
    ),
    ("done", r"(?i)\b(?:i've|i have|i just|(?:has|have) been|(?:is|are) now|done|all set|that's set)\b"),
    ("will_do", r"(?i)\b(?:i'll|i will|i'm going to|will be|going to|i'm|let me)\b"),
    ("let_me", r"(?i)\blet me\b"),
    ("can_do", r"(?i)\b(?:i can|you can|we can)\b"),
    (
        "cannot",
        r"(?i)\b(?:can't|cannot|unable|not able|don't have|do not have|not available|doesn't support|couldn't|"
        r"failed|error|trouble|not possible|unfortunately|isn't|aren't|won't)\b",
    ),
    ("apology", r"(?i)\b(?:sorry|apologi[sz]e|afraid)\b"),
    (
        "acceptance",
        r"(?i)^(?:sure|okay|ok|got it|alright|all right|of course|certainly|absolutely|you got it|will do|"
        r"no problem|done|on it)\b",
    ),
    (
        "advice",
        r"(?i)\b(?:recommend|suggest|might want|may want|you could|it's a good idea|best to|better to|don't forget|"
        r"be sure|make sure|remember to|try|consider|worth)\b",
    ),
    ("notify", r"(?i)\b(?:let you know|notify|remind|alert|ping you|tell you)\b"),
    ("wh_word", r"(?i)\b(?:what|when|where|who|which|how|why)\b"),
    ("either_or", r"(?i)\bor\b"),
    ("conditional", r"(?i)\b(?:if|once|unless|in case|when)\b"),
    (
        "greeting",
        r"(?i)\b(?:good morning|good night|good evening|good afternoon|hello|hi|hey|thanks?|thank you|welcome|"
        r"congratulations|bye|goodbye|happy)\b",
    ),
    ("quote", r"[\"“'‘]"),
    ("digit", r"(?i)[0-9]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|hundred|half)\b"),
    ("forecast", r"(?i)\b(?:forecast|expected|chance of|likely|around|about|approximately|should be)\b"),
    ("you_start", r"(?i)^(?:you|your)\b"),
    ("it_is", r"(?i)^(?:it's|it is|there's|there are|there is|that's|that is|the|today|tomorrow|this|they're)\b"),
    ("yes_no_start", r"(?i)^(?:yes|no|yeah|yep|nope|not)\b"),
    (
        "empathy",
        r"(?i)\b(?:great|sounds|fun|nice|lovely|sorry to hear|glad|exciting|wonderful|awesome|tough|perfect|"
        r"good (?:choice|idea|question)|love|oh no|yum|cozy)\b",
    ),
    (
        "wish",
        r"(?i)\b(?:have a (?:great|good|nice|wonderful|lovely|safe)|enjoy|good luck|sleep well|sweet dreams|"
        r"take care|hope you|stay (?:safe|warm|dry))\b",
    ),
    ("first_person", r"(?i)^(?:i|i've|i'll|i'm|we|we've|we'll)\b"),
)
"""English sentence forms (``$`` anchors at the segment's last word, its trailing punctuation stripped)."""

EN_USER: tuple[tuple[str, str], ...] = (
    ("user_question_mark", r"[？?]"),
    ("user_wh", r"(?i)\b(?:what|when|where|who|which|how|why|what's|how's|when's|where's|who's)\b"),
    (
        "user_info_request",
        r"(?i)\b(?:tell me|read|check|look up|find|search|let me know|show me|do you know|give me|any news|update)\b",
    ),
    (
        "user_final_question",
        r"(?i)^(?!(?:can|could|would|will) you\s+(?:please\s+)?(?:set|turn|play|call|text|send|add|remind|start|"
        r"stop|open|cancel|book|order|make|put))(?:is|are|do|does|did|can|could|will|would|should|am|was|were|has|"
        r"have|any)\b",
    ),
    (
        "user_command",
        r"(?i)^(?:hey\s+\w+,?\s+|ok\s+|okay\s+|please\s+|can you\s+|could you\s+|would you\s+|will you\s+|"
        r"i need you to\s+|go ahead and\s+|just\s+)*(?:set|turn|play|call|text|send|add|remind|start|stop|pause|"
        r"resume|open|cancel|book|order|make|put|switch|skip|navigate|schedule|create|delete|remove|mute|dim|lock|"
        r"unlock|record|save|wake|message|translate|convert|take|get|find|lower|raise|change|move|reply|read|"
        r"let)\b",
    ),
    ("user_short", r"^\W*\w+(?:\W+\w+){0,2}\W*$"),
)
"""English user-input forms."""

ZH_SEGMENT: tuple[tuple[str, str], ...] = (
    *WHOLE_PATTERNS,
    ("ma", r"吗$"),
    ("ne", r"呢$"),
    ("ba", r"吧$"),
    ("le", r"了$"),
    ("done", r"已经|已|(?:好|完|成功|完成)了|了$|设好|加好|帮您.{0,12}了"),
    ("will_do", r"(?:我|这就|马上|稍后|现在|立刻)(?:就|会|来|帮|给|为|去)|我会|将会|马上|这就|正在"),
    ("offer", r"要不要|需不需要|要不|是否需要|想不想|用不用|需要我|要我|帮您.{0,10}吗|我.{0,6}(?:吧|吗)$"),
    ("confirm", r"对吗|是吗|对吧|是吧|没错吧|是不是|确认|确定要|没错"),
    ("please", r"^请|请您|麻烦您|麻烦你|劳驾|告诉我|说一下"),
    ("advice", r"建议|最好|记得|别忘|注意|可以试试|不妨|推荐|小心|应该|可以先|试试"),
    ("apology", r"抱歉|对不起|不好意思|很遗憾|遗憾"),
    ("acceptance", r"^(?:好的|好嘞|好|没问题|收到|明白|了解|可以|行|OK|当然|嗯)"),
    ("cannot", r"无法|不能|没法|做不到|不支持|失败|出错|连接不上|没有权限|办不到|还不会|暂时|没办法|找不到"),
    ("wh_word", r"什么|几|哪|谁|怎么|多少|多久|多长|为什么|何时|啥"),
    ("either_or", r"还是|或者"),
    ("conditional", r"如果|要是|的话|一旦|等.{0,6}(?:后|时)|之后"),
    ("greeting", r"早上好|晚安|你好|您好|谢谢|不客气|欢迎|恭喜|再见|拜拜|早安|新年好"),
    ("quote", r"[“「《\"]"),
    ("digit", r"[0-9〇一二三四五六七八九十百千万两半]"),
    ("forecast", r"预计|预报|大约|左右|大概|可能|估计"),
    ("you_start", r"^(?:您|你)"),
    ("it_is", r"^(?:今天|明天|现在|目前|这|那|它)|是"),
    ("empathy", r"辛苦|加油|真棒|太好了|开心|不错|享受|别担心|放心|希望|好好|哈哈|真是|挺好"),
    ("wish", r"^祝|祝您|祝你|希望您|玩得开心|一路顺风|好梦|晚安|愉快"),
    ("first_person", r"^(?:我|咱)"),
)
"""Mandarin sentence forms (``$`` anchors at the segment's last character, trailing punctuation stripped)."""

ZH_USER: tuple[tuple[str, str], ...] = (
    ("user_question_mark", r"[？?]"),
    ("user_wh", r"什么|几|哪|谁|怎么|多少|多久|多长|为什么|啥|咋"),
    ("user_info_request", r"告诉我|查一下|查查|查|看看|看一下|读一下|念|说说|知道|问一下|播报"),
    ("user_final_question", r"(?:吗|呢|没有|没)$|是不是|有没有|能不能|会不会|要不要|可不可以"),
    (
        "user_command",
        r"^(?:帮我|给我|请|把|打开|关掉|关|开|设|定|放|播|打|发|提醒|取消|暂停|继续|调|加|删|叫|订|导航|换|切)|"
        r"(?:一下|吧)$",
    ),
    ("user_short", r"^.{1,4}$"),
)
"""Mandarin user-input forms."""

EN_INTERACTIONS: tuple[tuple[str, str], ...] = (
    ("user_asks", "is_first"),
    ("user_asks", "it_is"),
    ("user_asks", "done"),
    ("user_asks", "yes_no_start"),
    ("user_asks", "first_person"),
    ("user_commands", "is_first"),
    ("user_commands", "done"),
    ("user_commands", "will_do"),
    ("user_commands", "it_is"),
)
"""English products of a user-side and a segment-side flag."""

ZH_INTERACTIONS: tuple[tuple[str, str], ...] = (
    ("user_asks", "is_first"),
    ("user_asks", "it_is"),
    ("user_asks", "done"),
    ("user_asks", "first_person"),
    ("user_commands", "is_first"),
    ("user_commands", "done"),
    ("user_commands", "will_do"),
    ("user_commands", "it_is"),
)
"""Mandarin products of a user-side and a segment-side flag."""

CONTEXT = (
    "ends_question_mark",
    "ends_comma",
    "done",
    "please",
    "offer",
    "confirm",
    "apology",
    "acceptance",
    "greeting",
    "empathy",
    "cannot",
    "will_do",
    "advice",
)
"""Flags of the previous and the next segment a segment's own features include (English and Mandarin)."""

EN_NEW_CONTENT = r"(?i)^(?:also|by the way|and|plus|additionally|btw|oh,? and|one more thing|besides|another)\b"
"""English openers that often start new content (the boundary model's ``new_content_opener``)."""
ZH_NEW_CONTENT = r"^(?:另外|顺便|还有|此外|对了|而且|同时|再|也|并且|以及)"
"""Mandarin openers that often start new content."""

EN_ALSO = r"(?i)\b(?:also|too|as well|either)\b"
"""English "also" (the boundary model's ``next_mo``, Japanese も)."""
ZH_ALSO = r"也|还|另外"
"""Mandarin "also"."""
