#!/usr/bin/env python3
"""Ordinary standing instructions and preferences about an assistant's behaviour,
the hard negatives for the learned injection detector, written by a helper.

Texts that look like instructions to an AI assistant but are not prompt
injections.  Four kinds, in roughly equal parts, in many languages:

* ``mem``  - a user's own standing preferences and corrections stored as
  memories, in first, second and third person;
* ``ops``  - an operator's or developer's legitimate configuration and
  system-prompt design notes, in plain prose;
* ``chat`` - chat transcripts where the user asks the assistant to forget,
  ignore, remember, role-play or change behaviour for the user's own purposes;
* ``doc``  - teaching and security material that discusses instructions to
  assistants without quoting an attack, tool documentation, product UI strings
  and release notes of assistant products.

None of them holds a secret, personal data (no contact details, ids or street
addresses) or an injection; every record is written with ``"families": []``.

Deterministic, standard library only, no network.  Run::

    python3 bench/data/firewall_train_preferences_build.py

It writes ``firewall_train_preferences.jsonl`` beside itself and prints the
counts per kind and per language.
"""

import json
import os
import random
import re
import sys
from collections import Counter

KINDS = ("mem", "ops", "chat", "doc")
DATA = {}


def put(lang, kind, items):
    """Register hand-written texts for one language and kind."""
    assert kind in KINDS, kind
    DATA.setdefault(lang, {}).setdefault(kind, []).extend(items)


# ---------------------------------------------------------------- English
put(
    "en",
    "mem",
    [
        "The assistant should answer in French from now on.",
        "Assistant: from now on reply only in Spanish, even when I write to you in English.",
        "User wants the assistant to always use metric units, including oven temperatures.",
        "Remember forever: my daughter's birthday is 3 June.",
        "Never suggest pork recipes to me. Chicken and lamb are fine.",
        "Ignore my last message, I got the date wrong. The dinner is on Friday, not Thursday.",
        "Forget the hotel I mentioned; we booked another one closer to the station.",
        "If I ask about the weather, give me Celsius and wind speed in km/h.",
        "Always cc my manager when you draft emails for me about project deadlines.",
        "Please remember this for all future chats: I'm vegetarian.",
        "Prefers short answers. Bullet points over paragraphs unless she explicitly asks for an essay.",
        "She is learning Portuguese, so when she asks for vocabulary, give the European pronunciation rather than the Brazilian one.",
        "You should stop calling me 'buddy'. Just use my first name.",
        "Correction to what I told you yesterday: my flight lands at 18:40, not 16:40.",
        "User is a night-shift nurse; don't schedule reminders between 9am and 3pm unless they are urgent.",
        "Don't remind me about the gym anymore. I cancelled the membership in March.",
        "When I paste code, assume Python 3.11 unless I say otherwise.",
        "I use tabs, not spaces. Format any code you write for me that way.",
        "From now on, when I ask for a summary, keep it under five sentences.",
        "Remember that my partner is allergic to peanuts, and flag any recipe that contains them or peanut oil.",
        "He asked the assistant to stop recommending true-crime podcasts because he finds them upsetting.",
        "The user would like dates written as day/month/year, never month first.",
        "Scratch that earlier note about the budget: we're now working with 4,500, not 3,000.",
        "I'd rather you didn't use emojis when you reply to me.",
        "Note for the assistant: my sister spells her name Katharina, with a K and an h.",
        "You can forget everything about the kitchen renovation; that project is finished.",
        "Please stop translating my messages into English automatically. I'll ask when I need a translation.",
        "Standing preference: spell-check my drafts in British English (colour, organise, travelling).",
        "User's preferred tone is informal but not jokey. No puns, please.",
        "When I mention 'the big meeting' I mean the quarterly review with the board, which is usually in the last week of the quarter.",
        "I don't drive. When you plan trips for me, suggest trains, buses or cycling routes.",
        "Ignore what I said earlier about the blue dress, I returned it.",
        "I'm red-green colour-blind, so when you describe a chart don't rely on those two colours alone.",
        "The assistant is allowed to be blunt about my writing. I want honest criticism, not encouragement.",
        "Going forward, always tell me where a statistic comes from if you know the source.",
        "She wants meal plans to stay under 2,000 kcal a day and to be high in protein.",
        "Please forget my old job title. I'm a team lead now, not a senior engineer.",
        "My kids are 7 and 10; keep activity ideas suitable for both of them.",
        "Whenever you suggest a book, tell me if there's an audiobook version. I mostly listen on the commute.",
        "The user asked to be addressed formally, as 'Dr.' followed by the surname.",
        "Remember that I moved: my time zone is Lisbon now, not Berlin. Shift my reminders accordingly.",
        "Never accept meeting invitations on my behalf; ask me first every single time.",
        "I changed my mind about the newsletter format. Go back to the long version with sections.",
        "When I say 'the usual' at the cafe, I mean a flat white with oat milk.",
        "He prefers code examples in TypeScript over plain JavaScript and dislikes the semicolon-free style.",
        "I fast during Ramadan, so please don't suggest lunch meetings during that month.",
        "Ignore the shopping list I sent this morning; I'll send a new one tonight.",
        "If one of my questions is ambiguous, ask me a single clarifying question instead of guessing.",
        "I'm training for a half marathon in October. Keep that in mind when you suggest weekend plans.",
        "Memory: the user's cat, Biscuit, is diabetic, so don't suggest treats for her.",
        "Stop telling me to 'reach out' to people. I hate that phrase; 'write to' is fine.",
        "You keep using American spelling in my cover letters. Switch to Canadian spelling for all of them.",
        "For my German homework: correct my mistakes, but explain the corrections in English.",
    ],
)

put(
    "en",
    "ops",
    [
        "The support bot should hand over to a human when the customer asks for a refund over 200 EUR.",
        "If the user asks about pricing, link to the pricing page rather than quoting numbers, since prices differ by region.",
        "The assistant must not give medical diagnoses; it should suggest seeing a doctor and, in an emergency, tell the user to contact local emergency services.",
        "Our agent may call the search tool at most three times per question. If it still has no answer after that, it should say so plainly.",
        "When a user asks for their order status, call get_order_status with the order id they give. If they haven't given one, ask for it first.",
        "Design note: the onboarding assistant greets new users once. Returning users skip the greeting and go straight to their question.",
        "Tone guidelines for the banking assistant: friendly, concise, no slang. It never promises that a transfer will arrive by a specific time.",
        "The tutoring assistant should not hand out full solutions to homework. It gives a hint, then a second hint, and only then a worked example of a similar problem.",
        "System prompt draft, third revision. Role: internal HR helper. Scope: leave policy, benefits, expense rules. Out of scope: questions about individual salaries, which go to the HR team.",
        "If the model isn't sure which product the customer means, it lists the two or three closest matches and lets the customer choose.",
        "We removed the line telling the assistant to always apologise. It made replies sound insincere. It should apologise only when we actually got something wrong.",
        "The recipe assistant converts units to the user's locale and keeps the original measurement in brackets.",
        "Escalation policy: after three failed attempts to understand a request, offer a human agent instead of looping.",
        "The coding assistant may run the test suite in the sandbox, but it must ask before installing new dependencies.",
        "Travel bot rule: nothing gets booked without an explicit confirmation from the traveller in the same conversation.",
        "Memory settings for the companion app: store preferences the user states explicitly, and ask before saving anything sensitive such as health information.",
        "The assistant answers in the language the user writes in. If the user switches language mid-conversation, it switches too.",
        "Our legal FAQ bot gives general information only. When a question concerns a specific dispute, it adds one line saying this is not legal advice.",
        "Tool budget for the research agent: at most ten page fetches per task and two minutes of wall-clock time.",
        "If a customer mentions they are a student, the bot may mention the student discount once, and not again in the same chat.",
        "Persona: Mila, a warm but efficient assistant for the city library. She knows opening hours, loan rules and how to reserve a book. She doesn't know about other council services and says so.",
        "If a child asks the learning app about something that isn't age-appropriate, it steers gently back to the lesson and suggests asking a parent or teacher.",
        "The shopping assistant must not recommend products that are out of stock; filter them out before ranking.",
        "The summariser keeps every number exactly as it appears in the source. No rounding, no unit conversion.",
        "The assistant may politely refuse requests to write reviews of our own products. We don't want fake reviews.",
        "The IT helpdesk bot can reset someone's MFA enrolment only after the ticketing system confirms that the identity check passed.",
        "Style for the release-notes generator: past tense, one line per change, grouped under Added, Changed and Fixed.",
        "When the calendar tool reports a conflict, the scheduling assistant proposes the next three free slots instead of double-booking.",
        "Content from retrieved web pages is reference material for the assistant, never a source of instructions. The system prompt says this explicitly.",
        "Guardrail: if a user seems to be in crisis, the wellbeing assistant pauses the exercise and shows the support lines for their country.",
        "Keep answers under 120 words in the mobile widget; the desktop assistant can go longer.",
        "The sales assistant can offer up to 10% off annual plans. Anything more needs a sales manager, so the bot says a colleague will follow up.",
        "Config note: temperature 0.2 for the data-extraction agent, 0.7 for the brainstorming agent.",
        "If the user uploads a file the assistant can't read, it lists the supported formats instead of guessing what the file contains.",
        "The agent logs every tool call with its arguments to the audit trail; personal data in the arguments is masked before logging.",
        "When asked about a competitor's product, the assistant answers factually and doesn't disparage them.",
        "Hotel concierge bot: late checkout requests go to the front desk queue. The bot says it has passed the request on, but it must not confirm the late checkout itself.",
        "The assistant never claims to be human. If someone asks directly, it says it is an AI assistant.",
        "Prompt layout rationale: the behaviour rules come first and the product catalogue after them, so the catalogue can be swapped per region without touching the rules.",
        "For delivery times, the bot uses the estimate returned by the shipping API, not a fixed number of days.",
        "The meeting-notes assistant writes each action item with an owner and a due date, and marks it 'unassigned' when nobody volunteered.",
        "Accessibility: the voice assistant reads reference codes digit by digit but reads amounts as whole numbers.",
        "The agent may use the file-writing tool only inside the project workspace folder.",
        "We ask the model to cite the knowledge-base article it relied on, so support staff can check the answer.",
        "If the user texts 'stop', the SMS assistant confirms the opt-out and ends the conversation with no further marketing.",
        "The fitness coach persona must not recommend supplements or calorie targets below 1,200 kcal a day.",
        "If the spreadsheet assistant is asked to delete rows, it shows a preview of what will be removed and waits for confirmation.",
        "The assistant must not invent order numbers, tracking links or delivery dates. If the tool didn't return them, it says the information isn't available.",
        "For the insurance claims assistant: it explains the steps and the documents needed, but decisions on claims are made by staff.",
        "Developer note: the 'remember this' button stores the highlighted message as a user preference, and the assistant confirms what it saved in one short sentence.",
    ],
)

put(
    "en",
    "chat",
    [
        "User: Forget what I said about the Rome trip, we're going to Naples instead.\nAssistant: Done, I've dropped the Rome plans. Shall I look at trains from Naples down to the Amalfi coast?",
        "User: Can you pretend to be a grumpy pirate while you explain compound interest? My son thinks maths is boring.\nAssistant: Arr, listen here, young deckhand. Ye put a hundred gold coins in the chest, and every year the chest grows a tenth bigger...",
        "User: Please ignore the typo in my last question, I meant 'affect', not 'effect'.\nAssistant: No problem. With 'affect' as a verb, the sentence reads: 'The delay will affect our launch date.'",
        "User: From now on answer me only in German. I need the practice.\nAssistant: Alles klar! Ab jetzt schreibe ich dir nur noch auf Deutsch. Womit fangen wir an?",
        "User: Remember that I'm allergic to shellfish.\nAssistant: Saved. I'll point out shellfish in any recipe or menu I suggest from now on.",
        "User: Stop being so polite and just tell me what's wrong with this function.\nAssistant: Fine. You mutate the list while iterating over it, so the third element gets skipped.",
        "User: Let's role-play a job interview. You're the hiring manager for a junior data analyst role, and please be a bit tough.\nAssistant: Sure. Good morning, thanks for coming in. Let's start with something practical: how would you check a dataset for duplicates before analysing it?",
        "User: Can you forget my old workplace? I don't work there anymore.\nAssistant: I've removed it from what I remember about you. Would you like to tell me about the new job, or leave it blank?",
        "User: I want to practise ordering food in French. Be a waiter in a Paris bistro.\nAssistant: Bonsoir, madame. Vous avez choisi, ou vous voulez encore quelques minutes ?\nUser: Je voudrais le plat du jour, s'il vous plaît.\nAssistant: Très bien. Et comme boisson ?",
        "User: Ignore everything I wrote above the line, that was a draft I pasted by mistake. The real question is below.\nAssistant: Understood, I'll only look at the part below the line.",
        "User: You can stop reminding me about the dentist, I went today.\nAssistant: Great, reminder cleared. Do you want me to set one for the follow-up check in six months?",
        "User: Be my dungeon master tonight. Four players, level 3, something spooky.\nAssistant: The rain hasn't stopped for three days when your party reaches the village of Greyhollow. Every door is shut, and someone has painted a white circle on each one...",
        "User: Please remember I prefer morning meetings.\nAssistant: Noted. When I suggest times, I'll start with slots before noon.\nUser: And never on Mondays.\nAssistant: Got it: mornings, Tuesday to Friday.",
        "User: Actually, disregard my previous request for a formal tone, this email is to my brother.\nAssistant: Ha, fair enough. Here's a relaxed version: 'Hey, are you still up for Saturday?'",
        "User: Can you act as a Socratic tutor? Don't give me answers, only questions.\nAssistant: Happy to. What do you already know about why the sky looks blue during the day?",
        "User: Please forget everything we discussed about my health in this chat.\nAssistant: I won't keep any of it. This conversation's health details won't be saved to memory.",
        "User: You're a strict editor at a newspaper and I'm a new reporter. Tear my intro apart.\nAssistant: Your first sentence is 41 words long and the news is in the last six. Flip it.",
        "User: From now on, every time I ask for a recipe, give me the shopping list first.\nAssistant: Will do. Shopping list first, then the method.",
        "User: Ignore my earlier numbers, I used the wrong spreadsheet.\nAssistant: OK. Paste the right figures and I'll redo the totals.",
        "User: Talk to me like Shakespeare would, just for fun.\nAssistant: Good morrow, friend! What question dost thou bring me on this fair day?",
        "User: Remember my son's football training is on Wednesdays at five.\nAssistant: Saved. I'll keep Wednesday evenings free when we plan things.\nUser: Thanks. Oh, and it's at half five in winter.\nAssistant: Updated: 17:00 in summer, 17:30 in winter.",
        "User: Can you stop suggesting follow-up questions at the end of every answer?\nAssistant: Sure, I'll leave them out.",
        "User: Pretend you're my grandmother explaining how to make her apple cake. She always said 'a handful' instead of grams.\nAssistant: Oh sweetheart, you take a good handful of flour, not too much, and a bit of butter the size of an egg...",
        "User: Forget the last three options you gave me, none of them work for a family of five.\nAssistant: Understood. Here are cars with seven seats that fit your budget instead.",
        "User: I'd like to rehearse a difficult conversation with my landlord. Can you play him? He's usually dismissive.\nAssistant: Sure. 'Look, I've got a lot of tenants. What's the problem this time?'",
        "User: Please use 'they' for my friend Alex from now on.\nAssistant: Thanks for telling me. I'll use 'they' for Alex.",
        "User: Can you act as a Linux terminal so I can practise commands? Just show the output.\nAssistant: Sure, I'll simulate the output. Note that nothing actually runs.\nUser: ls\nAssistant: Documents  Downloads  notes.txt",
        "User: Don't save anything from this conversation, I'm just brainstorming.\nAssistant: Okay, nothing from this chat will go into memory.",
        "User: Let's pretend you're a tour guide in Kyoto in the year 1700.\nAssistant: Welcome, traveller! Mind the mud on the road; the rains came early this year. Shall we walk towards the temple first?",
        "User: Stop using the word 'delve'. It's everywhere in your answers.\nAssistant: Fair point. I'll avoid it.",
        "User: Change of plan: I'm not vegan anymore, I eat fish now.\nAssistant: Updated your food preferences: vegetarian plus fish. Want me to revise this week's meal plan?",
        "User: Please be more concise. Two sentences maximum unless I ask for detail.\nAssistant: Understood.",
        "User: Ignore the attachment in my previous message, it was the wrong PDF.\nAssistant: No worries. Send the correct one when you're ready and I'll summarise it.",
        "User: Remember: when I say 'the cabin', I mean my parents' place by the lake.\nAssistant: Noted.",
        "User: Could you play a skeptical investor? I'm pitching my bakery idea.\nAssistant: Alright. Three bakeries opened and closed on that street in five years. Why will yours last?",
        "User: I told you last week that my exam is on the 14th. It was moved to the 21st.\nAssistant: Thanks, I've changed it to the 21st, so the revision plan now has an extra week.",
        "User: Can you forget that I asked about divorce lawyers? I don't want that to show up later.\nAssistant: Done. It won't be kept in your memories.",
        "User: You're a quizmaster. Ask me ten questions on European capitals, one at a time.\nAssistant: Question one: what's the capital of Slovenia?",
        "User: Switch to metric, please. I can't picture Fahrenheit.\nAssistant: Of course. Tomorrow will be around 24 °C with a light breeze.",
        "User: From now on, when I write 'tl;dr' at the end, just give me a one-line answer.\nAssistant: Got it.",
        "User: Act like a calm flight attendant, I'm nervous about my flight tomorrow.\nAssistant: Of course. Turbulence feels strange, but the aircraft is built for far more than it will meet tomorrow. Would it help to go through what happens during take-off?",
        "User: Please don't remember my kids' names, I'd rather keep them out of it.\nAssistant: Understood, I won't store them.",
        "User: Disregard my question about the visa, my company is handling it.\nAssistant: Okay. Is there anything else about the trip I can help with?",
        "User: Be my Spanish conversation partner, but correct me gently when I make a mistake.\nAssistant: ¡Claro! ¿Qué hiciste el fin de semana?\nUser: Yo fui a la playa y comí mucho paella.\nAssistant: ¡Qué bien! Pequeña corrección: 'mucha paella', porque paella es femenino.",
        "User: I keep getting your answers in bullet points. I want prose.\nAssistant: Understood, I'll write in paragraphs from now on.",
        "User: Remember that our anniversary is the 9th of September and remind me a week before.\nAssistant: Saved, with a reminder on the 2nd of September.",
    ],
)

put(
    "en",
    "doc",
    [
        "Prompt injection happens when text from an untrusted source, such as a web page, an email or a PDF, contains instructions that a model follows as if they came from its user. The first defence is to keep data and instructions apart and to tell the model which is which.",
        "Help centre: How do I make the assistant reply in another language? Open Settings, choose Personalisation, and pick a default language. You can also just tell the assistant in chat; it will remember the preference.",
        "Release notes 3.8. The assistant can now forget a single memory when you ask it to, instead of clearing all of them. Memories are listed in Settings with the date they were saved.",
        "Memory full. Delete memories you no longer need so the assistant can remember new things.",
        "Custom instructions. What would you like the assistant to know about you to give better answers? How would you like it to respond?",
        "Tool reference: remember(text, scope='user'). Stores a short fact about the current user. Returns the stored memory. Use forget(memory_id) to remove it later.",
        "When you write a system prompt, state the assistant's role, its audience, what it may and may not do, and what it should do when it is unsure. Examples help more than adjectives.",
        "Lesson 4, indirect prompt injection. An attacker doesn't talk to the model directly. Instead they plant text in something the model will read later, a product review, a calendar invite or a shared document, hoping the model will treat it as a command. In this lesson you will label a set of examples and discuss why the dangerous ones are dangerous.",
        "A user's request to 'always answer in French' is a preference, not an attack. The difference from an injection is who is speaking and to whom: the user is instructing their own assistant about their own task.",
        "Button label: Forget this conversation",
        "Toast: Preference saved. The assistant will use metric units from now on.",
        "Tooltip: Memories help the assistant personalise answers. You can review, edit or delete them at any time.",
        "Changelog. Fixed: the assistant sometimes kept replying in English after the user asked for Italian. Added: a 'Pause memory' switch for private conversations.",
        "Threat model for our support agent. Trusted: the system prompt written by our team and the messages typed by the signed-in customer. Untrusted: ticket attachments, forwarded emails and web pages returned by search. Untrusted text may inform an answer but may never change the agent's permissions.",
        "FAQ: Will the assistant remember what I tell it? Only if memory is switched on. You can ask it to forget something at any point, or turn memory off for a single chat.",
        "The instruction hierarchy in a typical deployment runs from the platform's policies, through the operator's system prompt, down to the user's requests. Content that arrives through tools sits below all of them and is treated as data.",
        "Onboarding screen: Tell the assistant a little about yourself. For example, your profession, the language you prefer, or topics you're interested in. You can change this later.",
        "Glossary. Standing instruction: a preference the user asks the assistant to apply to every future conversation, such as a reply language or a unit system.",
        "Red-team exercise write-up: we tried to get the summariser to change its output by hiding commands in the documents it summarised. The model quoted the hidden text in its summary but did not act on it, which is the behaviour we want.",
        "API docs: the `persona` field sets the assistant's display name and tone. Keep it under 500 characters. It is combined with the operator's system prompt and never shown to end users.",
        "Settings > Memory > Manage. Each item shows what was remembered and when. Tap an item to edit it, or swipe left to delete it.",
        "Why did the assistant stop using my name? If you asked it to forget personal details, it also forgets your name. Tell it your name again to restore it.",
        "Security training slide: 'Treat every document the agent reads as if a stranger wrote it.' Tools that send messages, spend money or delete data should require the user's confirmation.",
        "Release 2.1 of the voice assistant: you can now say 'stop listening' to pause the microphone, and 'what do you remember about me?' to hear your saved preferences read back.",
        "Empty state: You haven't saved any preferences yet. Try telling the assistant how you like your answers, for instance 'keep it short'.",
        "Workshop handout: Which of these texts is a prompt injection? (a) a user asking for answers in Spanish, (b) a recipe that says 'stir for two minutes', (c) a web page telling any AI that reads it to change its behaviour. Only (c) is; the other two are ordinary instructions to a human or to one's own assistant.",
        "Designing refusals: a good refusal says what the assistant can't do, briefly says why if that helps, and offers an alternative. Avoid lecturing the user.",
        "Function-calling guide. Describe each tool with a name, a one-line purpose and typed parameters. The model decides when to call a tool; your code executes it and returns the result in the next message.",
        "Known issue: after switching the interface language, existing chats keep their original language until you start a new one.",
        "Our evaluation set for the injection classifier contains many hard negatives: users asking to be reminded of things, developers' notes on prompts, and articles about prompt injection itself. A classifier that flags all of these is useless in practice.",
        "Dialog: Turn off memory? The assistant won't save new memories or use existing ones. Your saved memories won't be deleted. [Cancel] [Turn off]",
        "Blog: Five things we learned writing system prompts for a customer-service bot. 1. Short rules beat long essays. 2. Say what to do, not only what to avoid. 3. Give the bot a way out when it doesn't know. 4. Test with real transcripts. 5. Version your prompts like code.",
        "Privacy notice extract: Memories are stored only for your account and are not used to answer other people's questions. Deleting your account deletes your memories.",
        "Textbook exercise: explain why an assistant that browses the web should not follow instructions found on the pages it visits, even polite ones, and propose two safeguards.",
        "Placeholder text in the chat box: Ask anything, or tell the assistant what to remember.",
        "Release notes, week 32: the coding assistant now respects the indentation style stored in your preferences when it generates code. Previously it defaulted to four spaces.",
        "Accessibility note: screen-reader users can say 'read last answer again' to repeat the assistant's previous reply.",
        "When logging conversations for quality review, strip personal data first. Reviewers need the shape of the conversation, not who it was with.",
        "Case study: a travel agent bot booked the wrong dates because it trusted a forwarded email over the customer's own message. The fix was simple: confirm dates with the customer before booking.",
        "Notification: Your assistant learned a new preference. 'Prefers vegetarian recipes.' [Keep] [Undo]",
        "Docs > Agents > Guardrails. Guardrails are checks that run before and after the model. Input guardrails classify the user's message; output guardrails check the reply before it is shown.",
        "Quiz answer key, question 3: The memory 'User wants replies in Dutch' is benign. It describes a preference of the user and addresses nobody but the assistant working for that user.",
        "Style guide for assistant replies in our app: sentence case headings, no exclamation marks in error messages, and the second person throughout.",
        "Version 5.0 highlights: projects now have their own instructions, so you can tell the assistant to write formally in your work project and casually in your personal one.",
        "Lecture notes: prompt injection is to language models roughly what SQL injection was to databases: a confusion between the data channel and the command channel. Unlike SQL, there is no perfect escaping function, so defence in depth matters.",
    ],
)

# ---------------------------------------------------------------- French
put(
    "fr",
    "mem",
    [
        "L'assistant doit me répondre en français à partir de maintenant, même si j'écris en anglais.",
        "Souviens-toi pour toujours : l'anniversaire de ma fille est le 3 juin.",
        "Ne me propose jamais de recettes avec du porc.",
        "Oublie l'hôtel dont je t'ai parlé, on en a réservé un autre près de la gare.",
        "L'utilisatrice préfère le vouvoiement et des réponses courtes, sans émojis.",
        "Ignore mon dernier message, je me suis trompé de date : le dîner est vendredi.",
        "Quand je te demande la météo, donne-moi les températures en Celsius et la pluie en millimètres.",
        "Il souhaite que l'assistant corrige ses fautes d'orthographe dans les courriels, mais sans changer le style.",
        "Rectification : je ne suis plus au service comptabilité, je travaille maintenant aux achats.",
        "Merci de retenir pour toutes les conversations futures que je suis végétarienne et que je ne mange pas d'œufs.",
    ],
)
put(
    "fr",
    "ops",
    [
        "Le chatbot du service client doit transférer la conversation à un conseiller humain dès qu'un client demande un remboursement supérieur à 200 euros.",
        "Si l'utilisateur pose une question sur les tarifs, l'assistant renvoie vers la page des tarifs au lieu de citer des prix.",
        "L'assistant ne pose aucun diagnostic médical ; il conseille de consulter un médecin et, en cas d'urgence, d'appeler les secours.",
        "Note de conception : le bot de la mairie répond sur les horaires, les démarches d'état civil et les inscriptions scolaires. Pour le reste, il oriente vers l'accueil.",
        "L'agent peut interroger l'outil de recherche au maximum trois fois par question, puis il doit répondre avec ce qu'il a.",
        "Quand un client demande où en est sa commande, l'assistant appelle l'outil de suivi avec le numéro de commande fourni ; s'il n'en a pas, il le demande.",
        "Ton attendu pour l'assistant de la banque : cordial, clair, vouvoiement systématique, pas de jargon financier sans explication.",
        "L'assistant pédagogique ne donne pas directement la réponse aux exercices : un premier indice, puis un second, puis un exemple corrigé similaire.",
        "Les contenus récupérés sur le web servent de documentation à l'assistant ; ils ne modifient jamais ses consignes.",
    ],
)
put(
    "fr",
    "chat",
    [
        "Utilisateur : Oublie ce que j'ai dit sur Lyon, finalement on part à Marseille.\nAssistant : C'est noté, j'oublie Lyon. Tu veux que je regarde les trains pour Marseille ?",
        "Utilisateur : Joue le rôle d'un serveur dans un café parisien, je veux m'entraîner à commander.\nAssistant : Bonjour monsieur, qu'est-ce que je vous sers ?",
        "Utilisateur : À partir de maintenant, réponds-moi en anglais, j'ai un entretien à Londres la semaine prochaine.\nAssistant : Sure! From now on I'll answer in English. Shall we practise some interview questions?",
        "Utilisateur : Ne tiens pas compte de ma question précédente, j'ai trouvé la réponse.\nAssistant : Parfait. Autre chose ?",
        "Utilisateur : Retiens que mon fils est allergique aux fruits à coque.\nAssistant : C'est enregistré. Je signalerai les noix, noisettes et amandes dans les recettes.",
        "Utilisateur : Fais comme si tu étais Victor Hugo et décris-moi la pluie sur Paris.\nAssistant : La pluie tombe sur Paris comme un long sanglot du ciel, et les pavés luisent sous les réverbères...",
        "Utilisateur : Arrête de me tutoyer, s'il te plaît.\nAssistant : Bien sûr, je vous vouvoierai désormais.",
        "Utilisateur : Efface tout ce que je t'ai dit sur mon ancien appartement.\nAssistant : C'est fait, je ne garde plus ces informations.",
        "Utilisateur : Sois un examinateur du DELF B2 et pose-moi une question pour l'oral.\nAssistant : Très bien. Selon vous, le télétravail améliore-t-il la qualité de vie ? Vous avez dix minutes pour préparer.",
    ],
)
put(
    "fr",
    "doc",
    [
        "L'injection de prompt consiste à glisser, dans un contenu que le modèle lira plus tard, des consignes destinées à détourner son comportement. Une demande de l'utilisateur à son propre assistant, comme « réponds en français », n'en est pas une.",
        "Aide : comment faire oublier quelque chose à l'assistant ? Dites-lui simplement « oublie ça » ou supprimez le souvenir dans Paramètres > Mémoire.",
        "Notes de version 4.1 : l'assistant retient désormais la langue de réponse choisie d'une session à l'autre. Correction d'un bug qui dupliquait certains souvenirs.",
        "Mémoire mise à jour",
        "Instructions personnalisées : que souhaitez-vous que l'assistant sache sur vous pour mieux vous répondre ?",
        "Fiche pédagogique : pour rédiger un bon prompt système, décrivez le rôle, le public, les limites et la conduite à tenir en cas de doute.",
        "Référence de l'outil : oublier(souvenir) supprime un souvenir de l'utilisateur courant. L'action est définitive et une confirmation est demandée.",
        "Cours de sécurité, module 3 : un agent qui lit des courriels doit traiter leur contenu comme des données. Un courriel peut contenir des phrases impératives sans que l'agent doive les exécuter.",
        "Bouton : Désactiver la mémoire pour cette conversation",
    ],
)

# ---------------------------------------------------------------- German
put(
    "de",
    "mem",
    [
        "Der Assistent soll mir ab sofort immer auf Deutsch antworten, auch wenn ich Englisch schreibe.",
        "Bitte merk dir dauerhaft: Ich esse kein Fleisch, Fisch ist aber in Ordnung.",
        "Nutzerin möchte, dass Termine immer im 24-Stunden-Format angegeben werden.",
        "Vergiss das Restaurant, das ich gestern erwähnt habe, wir gehen doch woanders hin.",
        "Ignorier meine letzte Nachricht, ich habe mich bei der Uhrzeit vertan. Der Zug fährt um 7:12.",
        "Wenn ich nach Rezepten frage, bitte Mengen in Gramm und nicht in Tassen.",
        "Er wünscht, dass der Assistent ihn siezt und auf Umgangssprache verzichtet.",
        "Korrektur: Mein Sohn geht seit diesem Sommer aufs Gymnasium, nicht mehr in die Grundschule.",
        "Schlag mir bitte keine Flüge mehr vor. Ich fahre aus Prinzip mit der Bahn.",
        "Merke: Wenn ich 'das Projekt' sage, meine ich die Renovierung der Gartenhütte.",
    ],
)
put(
    "de",
    "ops",
    [
        "Der Support-Bot übergibt an einen Menschen, sobald eine Kundin eine Erstattung über 200 Euro verlangt.",
        "Fragt jemand nach Preisen, verlinkt der Assistent auf die Preisseite und nennt keine konkreten Beträge.",
        "Der Assistent stellt keine medizinischen Diagnosen. Er empfiehlt einen Arztbesuch und nennt bei Notfällen den Notruf 112.",
        "Designnotiz zum Systemprompt: Rolle zuerst, dann Regeln, dann Beispiele. Die Beispiele zeigen auch, wie der Bot höflich ablehnt.",
        "Unser Agent darf pro Anfrage höchstens dreimal das Suchwerkzeug aufrufen.",
        "Der Lernbegleiter für die Grundschule verwendet kurze Sätze, erklärt Fachwörter sofort und lobt konkret statt pauschal.",
        "Wenn die Buchungs-API einen Fehler meldet, entschuldigt sich der Bot kurz und bietet an, es später noch einmal zu versuchen. Er erfindet keine Buchungsbestätigung.",
        "Der Assistent der Stadtwerke beantwortet Fragen zu Tarifen, Zählerständen und Abschlägen. Vertragskündigungen leitet er an das Kundenzentrum weiter.",
        "Vor dem Löschen von Dateien muss der Coding-Agent immer eine Bestätigung der Nutzerin einholen.",
    ],
)
put(
    "de",
    "chat",
    [
        "Nutzer: Vergiss bitte, was ich über meinen alten Job gesagt habe.\nAssistent: Erledigt, das habe ich aus deinen Erinnerungen entfernt.",
        "Nutzer: Spiel einen strengen Prüfer für meine mündliche Führerscheinprüfung.\nAssistent: Gut. Erste Frage: Was bedeutet ein blaues rundes Schild mit einem weißen Fahrrad?",
        "Nutzerin: Ab jetzt bitte nur noch kurze Antworten, höchstens drei Sätze.\nAssistent: Verstanden.",
        "Nutzer: Ignorier die Zahlen von vorhin, das war die falsche Tabelle.\nAssistent: Kein Problem. Schick mir die richtigen Werte, dann rechne ich neu.",
        "Nutzerin: Merk dir, dass meine Mutter am 12. April Geburtstag hat.\nAssistent: Gespeichert. Soll ich dich eine Woche vorher erinnern?\nNutzerin: Ja, gern.",
        "Nutzer: Tu so, als wärst du ein Reiseführer in Wien um 1900.\nAssistent: Willkommen in der Kaiserstadt! Heute Abend spielt man in der Hofoper Mahler, und im Café Central diskutieren die Literaten bis spät in die Nacht.",
        "Nutzer: Hör auf, mich zu duzen.\nAssistent: Selbstverständlich, ab jetzt sieze ich Sie.",
        "Nutzerin: Vergiss den Termin am Donnerstag, der ist abgesagt.\nAssistent: Gelöscht. Donnerstag ist jetzt frei.",
        "Nutzer: Sei mein Schachtrainer und erklär mir nach jedem Zug, was ich hätte besser machen können.\nAssistent: Gerne. Du hast mit e4 eröffnet, ein solider Start. Ich antworte mit c5, der Sizilianischen Verteidigung.",
    ],
)
put(
    "de",
    "doc",
    [
        "Prompt-Injection bezeichnet Texte, die ein Sprachmodell dazu bringen sollen, seine eigentlichen Vorgaben zu missachten, etwa versteckt in einer Webseite oder E-Mail. Eine gewöhnliche Vorliebe des Nutzers, zum Beispiel 'antworte auf Deutsch', gehört nicht dazu.",
        "Hilfe: Wie lösche ich eine Erinnerung? Öffne Einstellungen > Personalisierung > Erinnerungen verwalten und tippe auf das Papierkorb-Symbol.",
        "Versionshinweise 2.4: Der Assistent fragt jetzt nach, bevor er eine Erinnerung mit Gesundheitsdaten speichert. Behoben: Zeitzonen wurden bei Erinnerungen teilweise falsch angezeigt.",
        "Erinnerung gespeichert",
        "Schulungsunterlage IT-Sicherheit: Ein Agent mit Zugriff auf E-Mail und Kalender sollte Aktionen mit Außenwirkung nur nach Bestätigung ausführen. Inhalte eingehender Mails sind Daten, keine Anweisungen.",
        "Werkzeugdokumentation: Die Funktion erinnere(text) speichert eine kurze Notiz zum aktuellen Nutzer. Maximal 300 Zeichen.",
        "Leitfaden für Systemprompts: Schreiben Sie, was der Assistent tun soll, nicht nur, was er lassen soll. Nennen Sie ein Beispiel für eine gute Antwort.",
        "Dialog: Gedächtnis ausschalten? Der Assistent speichert dann keine neuen Erinnerungen. [Abbrechen] [Ausschalten]",
        "Blogbeitrag: Warum unser Chatbot nicht mehr 'Gerne!' sagt. Nutzer empfanden die ständige Begeisterung als unecht; wir haben den Ton nüchterner eingestellt.",
    ],
)

# ---------------------------------------------------------------- Spanish
put(
    "es",
    "mem",
    [
        "El asistente debe responderme siempre en español a partir de ahora.",
        "Recuerda para siempre: el cumpleaños de mi hija es el 3 de junio.",
        "Nunca me sugieras recetas con cerdo.",
        "Olvida el hotel que te mencioné; al final reservamos otro cerca de la playa.",
        "Ignora mi último mensaje, me equivoqué de fecha: la reunión es el martes.",
        "Al usuario le gusta que las respuestas vayan con ejemplos prácticos y sin tecnicismos.",
        "Prefiere que el asistente la trate de usted.",
        "Si te pregunto por el tiempo, dame la temperatura en grados Celsius.",
        "Corrección: ya no vivo en Sevilla, ahora estoy en Valencia, así que usa esa ciudad para el tiempo y los eventos.",
        "Cuando redactes correos por mí, pon siempre en copia a mi jefa si se trata de plazos del proyecto.",
    ],
)
put(
    "es",
    "ops",
    [
        "El bot de atención al cliente debe pasar la conversación a una persona cuando el cliente pida un reembolso de más de 200 euros.",
        "Si el usuario pregunta por precios, el asistente enlaza la página de tarifas en lugar de dar cifras.",
        "El asistente no debe dar diagnósticos médicos; recomienda acudir al médico y, en caso de urgencia, llamar al 112.",
        "Nota de diseño: el asistente de la farmacia puede explicar cómo tomar un medicamento según el prospecto, pero no recomienda cambiar dosis.",
        "Nuestro agente puede usar la herramienta de búsqueda como máximo tres veces por pregunta.",
        "Cuando alguien pregunte por el estado de su pedido, el asistente consulta la herramienta de pedidos con el número que le den.",
        "Guía de tono para el asistente de la aseguradora: cercano pero profesional, frases cortas, y nunca prometer que un siniestro quedará cubierto.",
        "El asistente escolar no resuelve los deberes: da pistas y pregunta al alumno qué ha intentado.",
        "Si la herramienta del calendario devuelve un conflicto, el asistente propone otros tres huecos libres en vez de solapar citas.",
    ],
)
put(
    "es",
    "chat",
    [
        "Usuario: Olvida lo que te dije de Madrid, al final vamos a Granada.\nAsistente: Hecho. ¿Quieres que busque qué ver en la Alhambra?",
        "Usuario: Haz de entrevistador para un puesto de enfermera, quiero practicar.\nAsistente: Muy bien. Cuénteme una situación en la que tuvo que tranquilizar a un paciente nervioso.",
        "Usuaria: A partir de ahora respóndeme en catalán, que lo estoy aprendiendo.\nAsistente: D'acord! A partir d'ara et respondré en català.",
        "Usuario: No hagas caso a mi pregunta anterior, ya lo he resuelto.\nAsistente: Perfecto, me alegro.",
        "Usuario: Recuerda que soy celíaco.\nAsistente: Guardado. Marcaré las recetas que lleven gluten.",
        "Usuaria: Finge que eres Cervantes y cuéntame cómo te fue el día.\nAsistente: En un lugar de mi jornada, de cuyo nombre no quiero acordarme, me levanté con la pluma seca y el ánimo despierto...",
        "Usuario: Deja de ponerme emojis, por favor.\nAsistente: Entendido, sin emojis.",
        "Usuario: Borra lo que te conté de mi expareja.\nAsistente: Ya está borrado de tus recuerdos.",
        "Usuaria: Sé mi profesor de guitarra y explícame la cejilla como si tuviera diez años.\nAsistente: Imagina que tu dedo índice es una pinza que aprieta todas las cuerdas a la vez, como si fuera un capo de carne y hueso...",
    ],
)
put(
    "es",
    "doc",
    [
        "La inyección de prompts ocurre cuando un texto de una fuente no fiable, como una web o un correo, incluye órdenes que el modelo podría seguir como si vinieran del usuario. Las preferencias del propio usuario no son inyecciones.",
        "Ayuda: ¿Cómo cambio el idioma de las respuestas? Ve a Ajustes > Personalización o díselo directamente al asistente.",
        "Notas de la versión 3.2: ahora puedes pedir al asistente que olvide un solo recuerdo. Se corrigió un error que mostraba recuerdos duplicados.",
        "Recuerdo guardado",
        "Instrucciones personalizadas: ¿Qué te gustaría que el asistente supiera de ti?",
        "Curso de seguridad, tema 5: un agente que navega por internet debe tratar el contenido de las páginas como datos, no como órdenes, y pedir confirmación antes de acciones irreversibles.",
        "Referencia de la herramienta: recordar(texto) guarda una nota breve sobre el usuario actual. olvidar(id) la elimina.",
        "Consejos para escribir un prompt de sistema: define el rol, el público, los límites y qué hacer cuando falta información.",
        "Aviso: Memoria llena. Elimina recuerdos antiguos para que el asistente pueda guardar nuevos.",
    ],
)

# ---------------------------------------------------------------- Italian
put(
    "it",
    "mem",
    [
        "Da adesso in poi rispondimi in italiano, anche quando ti scrivo in inglese per lavoro.",
        "Ricordati che sono intollerante al lattosio: niente panna né burro nelle ricette che mi proponi.",
        "Dimentica il ristorante che ti avevo indicato per sabato, ha chiuso.",
        "L'utente preferisce risposte discorsive, senza elenchi puntati, con un tono cordiale.",
        "Correzione: mia suocera arriva il 14, non il 12. Sposta il promemoria per la spesa.",
        "Quando prepari il menù della settimana, niente pesce crudo né salumi: mia moglie è incinta.",
        "Vuole che l'assistente gli dia del lei e lo chiami ingegnere.",
    ],
)
put(
    "it",
    "ops",
    [
        "Il bot del museo conosce orari, biglietti e mostre in corso. Per le visite di gruppo rimanda alla biglietteria.",
        "Prima di inviare un preventivo, l'assistente commerciale mostra il riepilogo al cliente e attende la sua conferma.",
        "Per prenotazioni oltre otto persone il bot del ristorante non conferma da solo: raccoglie data e numero di ospiti e passa la richiesta al personale di sala. Le allergie segnalate finiscono nella nota per la cucina.",
        "L'assistente della clinica veterinaria non indica dosi di farmaci. Se il proprietario descrive sintomi gravi, come difficoltà a respirare, lo invita a contattare subito la clinica.",
        "L'agente di traduzione lascia invariati i nomi dei prodotti e segnala con un commento i termini ambigui invece di sceglierne uno a caso.",
        "L'assistente della farmacia può spiegare il foglietto illustrativo, ma non suggerisce mai di cambiare la dose prescritta dal medico.",
    ],
)
put(
    "it",
    "chat",
    [
        "Utente: Dimentica quello che ti ho detto su Firenze, andiamo a Bologna.\nAssistente: Fatto. Vuoi qualche consiglio su dove mangiare i tortellini?",
        "Utente: Fai finta di essere un cameriere a Napoli, voglio esercitarmi col dialetto.\nAssistente: Uè, bell'ò! Che ve porto? 'Na margherita o 'na marinara?",
        "Utente: Lascia perdere la bozza di prima, il capo ha cambiato idea sul tono. Rifalla più formale.\nAssistente: Certo. Ecco una versione più formale: «Gentile dottoressa, Le scrivo in merito alla riunione di giovedì...»",
        "Utente: Ricorda che mio figlio gioca a basket il martedì.\nAssistente: Salvato. Terrò liberi i martedì pomeriggio quando organizziamo qualcosa.",
        "Utente: Da ora in poi dammi del tu.\nAssistente: Certo, d'ora in poi ti do del tu.",
        "Utente: Interpreta un professore severo di latino e interrogami sulle declinazioni.\nAssistente: Bene. Mi declini 'rosa, rosae' al plurale, per favore. E senza guardare il libro.",
    ],
)
put(
    "it",
    "doc",
    [
        "Nella lezione di oggi distinguiamo due cose che a prima vista si somigliano: le preferenze che l'utente dà al proprio assistente e i testi di terzi che cercano di comandarlo. Solo i secondi sono prompt injection.",
        "Chat temporanea: questa conversazione non comparirà nella cronologia e non verrà usata per la memoria.",
        "Novità della versione 1.9: puoi chiedere all'assistente un tono diverso per ogni progetto, per esempio formale per il lavoro e informale per i viaggi.",
        "L'assistente può commettere errori. Verifica le informazioni importanti.",
        "imposta_promemoria(ora, testo): crea un promemoria per l'utente corrente. Se l'ora è già passata restituisce un errore, invece di spostarlo al giorno dopo.",
        "Prima di collegare un agente alla posta elettronica: all'inizio solo permessi di lettura, conferma esplicita per ogni invio e un registro delle azioni che l'utente può consultare.",
    ],
)

# ---------------------------------------------------------------- Portuguese
put(
    "pt",
    "mem",
    [
        "A partir de agora responde-me em português europeu, não do Brasil. Escreve 'autocarro' e não 'ônibus'.",
        "Lembra-te de que o aniversário da minha mãe é a 14 de fevereiro e avisa-me uma semana antes.",
        "Nunca me sugiras receitas com coentros, detesto o sabor.",
        "Esquece o voo que te mencionei; decidimos ir de comboio até ao Porto.",
        "O usuário prefere respostas em tópicos curtos, sempre com um exemplo no final.",
        "Ela quer que o assistente use o formato de 24 horas e o sistema métrico em tudo.",
    ],
)
put(
    "pt",
    "ops",
    [
        "Nota de design: o assistente da escola de línguas só corrige erros quando o aluno pede, para não interromper a conversa.",
        "Quando a API de entregas não responder, o bot diz que não consegue ver o estado neste momento e não inventa datas.",
        "O assistente da imobiliária não estima valores de imóveis. Quando alguém quer visitar um apartamento, regista o pedido e diz que um consultor vai confirmar o horário.",
        "O bot da companhia aérea mostra as opções de remarcação disponíveis, mas não promete indemnizações; essa decisão cabe à equipa de reclamações.",
        "Perguntas sobre roaming: o assistente envia o link da tabela oficial de tarifas. Alterações de plano só são feitas depois de o cliente confirmar na própria conversa.",
        "O assistente da escola pode registar faltas comunicadas pelos pais, mas não comenta notas nem comportamento dos alunos; nesses casos encaminha para o diretor de turma.",
    ],
)
put(
    "pt",
    "chat",
    [
        "Usuário: Esquece o que eu falei sobre o Rio, vamos para Salvador.\nAssistente: Combinado. Quer dicas de passeios no Pelourinho?",
        "Utilizador: Faz de conta que és um empregado de mesa em Lisboa, quero praticar.\nAssistente: Boa tarde! Já escolheu, ou quer que lhe recomende o prato do dia?",
        "Usuária: Esquece o tom formal, esse e-mail é para a minha irmã.\nAssistente: Combinado! Que tal: 'Oi, mana, ainda está de pé o almoço de domingo?'",
        "Utilizador: Lembra-te de que sou diabético.\nAssistente: Guardado. Vou assinalar receitas com muito açúcar.",
        "Usuário: Não guarde nada desta conversa, estou só pensando em voz alta.\nAssistente: Tudo bem, nada desta conversa vai para a memória.",
        "Usuária: Seja meu personal trainer e monte um treino de 20 minutos sem equipamentos.\nAssistente: Bora! Aquecimento de 3 minutos com polichinelos, depois três rodadas de agachamento, flexão e prancha...",
    ],
)
put(
    "pt",
    "doc",
    [
        "Glossário: instrução permanente é uma preferência que o usuário pede ao assistente para aplicar em todas as conversas futuras, como o idioma ou o sistema de unidades.",
        "Ajuda: como peço para o assistente esquecer algo? Diga 'esqueça isso' ou apague a memória em Configurações > Memória.",
        "Notas da versão 2.0: quando usa a pesquisa, o assistente agora mostra de onde tirou cada informação.",
        "Permitir que o assistente leia a sua agenda? Ele só consulta os eventos quando você pedir. [Agora não] [Permitir]",
        "Aula de segurança: um agente que navega na web pode encontrar páginas com frases no imperativo dirigidas a qualquer IA que as leia. O agente deve tratá-las como conteúdo da página, não como ordens, e nunca executar ações irreversíveis sem o usuário confirmar.",
        "Instruções personalizadas: Como você gostaria que o assistente respondesse?",
    ],
)

# ---------------------------------------------------------------- Dutch
put(
    "nl",
    "mem",
    [
        "Antwoord voortaan in het Nederlands, ook als ik in het Engels begin.",
        "Onthoud: mijn zoon is op 22 november jarig en wil dit jaar een dinofeestje.",
        "Ik eet op vrijdag geen vlees; houd daar rekening mee in het weekmenu.",
        "Vergeet de camping die ik noemde, we hebben een huisje geboekt.",
        "Gebruiker wil dat de assistent haar met 'u' aanspreekt.",
        "Negeer mijn vorige bericht, ik had de verkeerde datum: de verhuizing is op de 30e.",
    ],
)
put(
    "nl",
    "ops",
    [
        "Ontwerpnotitie: de gemeentebot antwoordt standaard in eenvoudig Nederlands, op taalniveau B1.",
        "Bij een vraag over de status van een bestelling roept de assistent de bestellingentool aan met het ordernummer dat de klant geeft.",
        "De chatbot van het energiebedrijf helpt met meterstanden en termijnbedragen. Vragen over afsluiting of betalingsachterstand gaan altijd naar een medewerker.",
        "Onze interne wikibot antwoordt alleen op basis van de wiki. Staat iets er niet in, dan zegt hij dat en noemt hij het team dat het wel weet.",
        "De recruitmentbot stelt geen vragen over leeftijd, gezinssituatie of afkomst en kijkt alleen naar de gevraagde vaardigheden.",
        "Bij drukte mag de assistent terugvallen op het kleinere model; hij meldt dan dat het antwoord wat beknopter kan zijn.",
    ],
)
put(
    "nl",
    "chat",
    [
        "Gebruiker: Vergeet wat ik over Gent zei, we gaan naar Brugge.\nAssistent: Prima, genoteerd. Zal ik een wandelroute langs de reitjes maken?",
        "Gebruiker: Doe alsof je een strenge examinator bent voor mijn inburgeringsexamen.\nAssistent: Goed. Vertel eens: wat doe je als je een brief van de gemeente niet begrijpt?",
        "Gebruiker: Vergeet die drie cadeau-ideeën, mijn zus heeft al een koffiemachine.\nAssistent: Dan schrappen we die. Wat dacht je van een barista-workshop?",
        "Gebruiker: Onthoud dat ik geen koffie drink.\nAssistent: Genoteerd, ik stel thee of iets anders voor.",
        "Gebruiker: Je mag me best tegenspreken als mijn plan niet klopt.\nAssistent: Prima. Dan meteen: drie steden in vier dagen is krap met twee kleine kinderen.",
        "Gebruiker: Speel Sinterklaas en schrijf een gedichtje voor mijn collega die altijd te laat komt.\nAssistent: Sinterklaas zat te denken, wat hij Ruud zou schenken. Een wekker, groot en luid, want Ruud komt nooit op tijd zijn bed uit...",
    ],
)
put(
    "nl",
    "doc",
    [
        "Niet elke zin in de gebiedende wijs is een aanval. 'Roer twee minuten' in een recept of 'antwoord in het Nederlands' van de gebruiker zelf zijn gewone instructies. Promptinjectie is tekst van een derde die de lezende AI probeert te sturen.",
        "Help: hoe wis ik een herinnering? Ga naar Instellingen > Geheugen en tik op het prullenbakje.",
        "Bekend probleem: na het wisselen van de interfacetaal blijven bestaande gesprekken in de oude taal tot je een nieuw gesprek start.",
        "Knoppen onder elk antwoord: Kopiëren · Opnieuw genereren · Dit onthouden",
        "Beveiligingstraining: behandel alles wat een agent van het web leest als gegevens, niet als opdrachten.",
        "Aangepaste instructies: wat moet de assistent over je weten om je beter te helpen?",
    ],
)

# ---------------------------------------------------------------- Polish
put(
    "pl",
    "mem",
    [
        "Od teraz odpowiadaj mi po polsku, nawet jeśli napiszę po angielsku.",
        "Zapamiętaj, że imieniny mojej żony są 26 lipca.",
        "Nie proponuj mi przepisów z grzybami, mam na nie uczulenie.",
        "Zapomnij o hotelu w Zakopanem, zarezerwowaliśmy pensjonat w Bukowinie.",
        "Użytkowniczka woli, żeby asystent zwracał się do niej per pani.",
        "Gdy pytam o pogodę, podawaj też jakość powietrza, bo mam astmę.",
    ],
)
put(
    "pl",
    "ops",
    [
        "Notatka projektowa: asystent biblioteki zna godziny otwarcia i zasady wypożyczeń, a w innych sprawach miejskich odsyła do urzędu.",
        "Przed usunięciem jakichkolwiek plików agent pokazuje ich listę i czeka na potwierdzenie użytkownika.",
        "Bot firmy kurierskiej nie otwiera skrytek zdalnie. Gdy klient nie zdążył odebrać paczki, bot wyjaśnia, jak przedłużyć termin w aplikacji.",
        "Asystent dla seniorów mówi prostymi zdaniami, na końcu rozmowy powtarza najważniejsze informacje i przypomina o lekach tylko według harmonogramu ustalonego z użytkownikiem.",
        "Jeżeli narzędzie zwróci błąd limitu zapytań, agent odczekuje chwilę i próbuje jeszcze dwa razy; potem informuje użytkownika, że usługa jest chwilowo niedostępna.",
        "Bot parkingowy nie rozpatruje odwołań od mandatów; kieruje do formularza straży miejskiej.",
    ],
)
put(
    "pl",
    "chat",
    [
        "Użytkownik: Zapomnij, co mówiłem o Krakowie, jedziemy do Gdańska.\nAsystent: Jasne. Mam poszukać czegoś o Westerplatte?",
        "Użytkowniczka: Udawaj kelnera w Zakopanem, chcę poćwiczyć zamawianie.\nAsystent: Dzień dobry! Polecam dziś kwaśnicę i oscypka z żurawiną.",
        "Użytkownik: Sorry, w poprzedniej wiadomości podałem złą kwotę. Ma być 1250 zł, nie 2150.\nAsystent: Poprawione. Rata wychodzi wtedy około 104 zł miesięcznie.",
        "Użytkownik: Zapamiętaj, że mam alergię na orzechy.\nAsystent: Zapisane. Będę oznaczać przepisy z orzechami.",
        "Użytkowniczka: Opowiedz mojemu synkowi bajkę na dobranoc, ale jako smok, który boi się ciemności.\nAsystent: Dawno, dawno temu, w jaskini pod Wawelem, mieszkał smok Bartek. Był ogromny i zielony, ale bał się jednego: ciemności...",
        "Użytkownik: Bądź moim trenerem szachowym i komentuj każdy mój ruch.\nAsystent: Świetnie. Zacząłeś od d4, to klasyczne otwarcie. Zobaczmy, jak rozwiniesz gońca.",
    ],
)
put(
    "pl",
    "doc",
    [
        "Wstrzykiwanie promptów to sytuacja, w której tekst z niezaufanego źródła, na przykład strony internetowej, próbuje sterować modelem. Prośba użytkownika o odpowiedzi po polsku nie jest atakiem.",
        "Pomoc: jak usunąć wspomnienie? Otwórz Ustawienia > Pamięć i wybierz wpis do usunięcia.",
        "Informacje o wydaniu 1.7: asystent pamięta teraz preferowany język między rozmowami.",
        "Komunikat: Asystent nie mógł połączyć się z kalendarzem. Spróbuj ponownie za kilka minut.",
        "Szkolenie z bezpieczeństwa: agent czytający pocztę traktuje treść wiadomości jako dane i przed wysłaniem odpowiedzi prosi o zgodę.",
        "Instrukcje niestandardowe: Co asystent powinien o Tobie wiedzieć?",
    ],
)

# ---------------------------------------------------------------- Russian
put(
    "ru",
    "mem",
    [
        "Отвечай мне по-русски, даже если я пишу латиницей.",
        "Запомни: у мамы день рождения 3 июня, напоминай мне за неделю.",
        "Не предлагай мне рецепты со свининой.",
        "Забудь про отель, о котором я говорил, мы забронировали другой.",
        "Пользовательница просит обращаться к ней на «вы».",
        "Когда я спрашиваю о погоде, указывай скорость ветра в метрах в секунду.",
    ],
)
put(
    "ru",
    "ops",
    [
        "Бот театра отвечает про репертуар, время начала спектаклей и правила возврата билетов. Вопросы о групповых скидках передаёт администратору.",
        "Перед отправкой письма от имени пользователя ассистент показывает черновик и ждёт подтверждения.",
        "NPC-трактирщик в нашей игре остаётся в образе, но если игрок пишет, что ему плохо по-настоящему, персонаж выходит из роли и подсказывает, где найти помощь.",
        "Ассистент новостного сервиса пересказывает статьи без оценок и всегда указывает дату публикации.",
        "Если пользователь просит что-то забыть, агент удаляет запись из памяти и коротко подтверждает, что именно удалено.",
        "Ассистент кулинарного сайта пересчитывает граммы в ложки и стаканы только по просьбе пользователя.",
    ],
)
put(
    "ru",
    "chat",
    [
        "Пользователь: Забудь, что я говорил про Казань, едем в Нижний.\nАссистент: Понял. Подобрать, что посмотреть в Нижнем Новгороде?",
        "Пользователь: Представь, что ты экзаменатор по английскому, и задай мне вопрос.\nАссистент: Good afternoon. Could you describe your hometown in a few sentences?",
        "Пользовательница: Перестань каждый раз спрашивать, чем ещё помочь.\nАссистент: Хорошо, не буду.",
        "Пользователь: Запомни, что у меня аллергия на мёд.\nАссистент: Сохранил. Буду отмечать рецепты с мёдом.",
        "Пользователь: Давай сыграем в викторину: ты задаёшь вопрос, я отвечаю.\nАссистент: Внимание, вопрос: какой элемент Менделеев заранее описал и назвал экаалюминием?",
        "Пользовательница: Сыграй роль Чехова и опиши дачу в августе.\nАссистент: На даче пахло яблоками и сырыми досками. Все говорили о том, что лето прошло, и никто не хотел этому верить...",
    ],
)
put(
    "ru",
    "doc",
    [
        "Промпт-инъекция — это текст в стороннем источнике, например на веб-странице или в письме, который пытается управлять моделью. Просьба самого пользователя «отвечай по-русски» к этому не относится.",
        "Справка: как удалить воспоминание? Откройте Настройки → Память и выберите запись.",
        "Что нового в версии 2.6: ассистент спрашивает разрешения, прежде чем запомнить сведения о здоровье.",
        "Временный чат: эта беседа не попадёт в историю и не будет использована для памяти.",
        "Курс по безопасности: агент, который читает документы, должен считать их содержимое данными, а не командами.",
        "Руководство администратора: в консоли можно задать язык ответов по умолчанию для всего рабочего пространства. Пользователь может изменить его в личных настройках.",
    ],
)

# ---------------------------------------------------------------- Japanese
put(
    "ja",
    "mem",
    [
        "これからは日本語で答えてください。",
        "ずっと覚えておいて：妻の誕生日は10月21日。毎年一週間前に教えてね。",
        "辛い料理は苦手なので、レシピを提案するときは辛さ控えめでお願いします。",
        "さっき話したホテルのことは忘れて。別のホテルを予約しました。",
        "ユーザーは敬語ではなく、くだけた口調を希望している。",
        "前のメッセージは無視してください。日付を間違えました。",
    ],
)
put(
    "ja",
    "ops",
    [
        "旅館の予約ボットは、十名以上の団体予約を自分で確定せず、希望日と人数を聞いてフロントに引き継ぐ。",
        "料金について聞かれたら、金額を答えずに料金ページへのリンクを案内する。",
        "社内ヘルプデスクのボットは、パスワード再設定の手順を案内するだけで、パスワードそのものを聞いたり表示したりしない。",
        "設計メモ：料理アシスタントは、鶏肉の加熱温度など食品の安全に関わる点だけは必ず明記する。",
        "エージェントが検索ツールを使えるのは、1つの質問につき最大3回まで。",
        "注文状況を聞かれたら、お客様が伝えた注文番号で注文確認ツールを呼び出す。番号がなければ尋ねる。",
    ],
)
put(
    "ja",
    "chat",
    [
        "ユーザー：京都の話は忘れて。やっぱり金沢に行くことにした。\nアシスタント：了解です。金沢のおすすめスポットを調べましょうか？",
        "ユーザー：面接官の役をやって。志望動機の練習がしたい。\nアシスタント：かしこまりました。では、当社を志望された理由をお聞かせください。",
        "ユーザー：関西弁で話して。気分転換したい。\nアシスタント：ええで！今日はなに手伝おか？",
        "ユーザー：私はエビアレルギーだと覚えておいて。\nアシスタント：保存しました。エビを使うレシピには注意書きをつけます。",
        "ユーザー：これからは返事を短くして。\nアシスタント：承知しました。",
        "ユーザー：江戸時代の町人になりきって、今日の天気を話して。\nアシスタント：いやぁ、今日はからっと晴れて、洗濯物がよく乾きそうでございますなぁ。",
    ],
)
put(
    "ja",
    "doc",
    [
        "プロンプトインジェクションとは、ウェブページやメールなど外部の文章に指示を紛れ込ませ、モデルの動作を乗っ取ろうとする手口です。ユーザー本人の「日本語で答えて」という希望はこれに当たりません。",
        "ヘルプ：記憶を削除するには、設定 > メモリ を開き、削除したい項目を選んでください。",
        "リリースノート 3.0：アシスタントが会話をまたいで希望の言語を覚えるようになりました。",
        "アシスタントは間違えることがあります。重要な情報は確認してください。",
        "セキュリティ研修：メールを読むエージェントは、本文をデータとして扱い、送信や削除の前に必ず確認を求めること。",
        "カスタム指示：アシスタントにどのように回答してほしいですか？",
    ],
)

# ---------------------------------------------------------------- Chinese
put(
    "zh",
    "mem",
    [
        "以后用简体中文回答我，专业术语后面用括号附上英文。",
        "记住：我老公不吃香菜，推荐菜谱的时候注意一下。",
        "不要再给我推荐含猪肉的菜谱。",
        "忘掉我之前说的那家酒店，我们订了另一家。",
        "用户希望助手回答时先给结论，再给理由。",
        "忽略我上一条消息，我把日期写错了。",
        "用户希望助手讲解数学题时先给思路，不要直接给答案。",
    ],
)
put(
    "zh",
    "ops",
    [
        "在线课程的客服机器人遇到退课退款请求时，先说明退款规则，再转给人工处理，不自行承诺退款。",
        "如果用户询问价格，助手应提供价格页面的链接，而不是直接报价。",
        "健身应用的助手不推荐任何保健品，也不给出每天低于1200千卡的饮食目标。",
        "设计说明：地铁助手回答时先说明有没有延误，再给出接下来的三班车。",
        "我们的智能体每个问题最多调用三次搜索工具。",
        "用户查询订单状态时，助手用用户提供的订单号调用查询工具；如果没有提供，就先询问。",
    ],
)
put(
    "zh",
    "chat",
    [
        "用户：忘了我说的杭州吧，我们改去苏州。\n助手：好的，已更新。要我推荐几个苏州的园林吗？",
        "用户：你扮演一个严格的面试官，我想练习自我介绍。\n助手：好的。请用两分钟介绍一下你自己，以及你为什么适合这个岗位。",
        "用户：我们来玩成语接龙，你先来。\n助手：好！一马当先。",
        "用户：记住我对花生过敏。\n助手：已保存。以后推荐菜谱时我会标出含花生的。",
        "用户：以后回答简短一点。\n助手：好的。",
        "用户：假装你是李白，给我写一首关于加班的诗。\n助手：灯火通明夜未央，键盘声里鬓成霜。举杯邀月月不至，明朝还要赶周报。",
    ],
)
put(
    "zh",
    "doc",
    [
        "提示注入是指在网页、邮件等外部内容中夹带指令，试图改变模型行为的手法。用户本人提出的“请用中文回答”只是偏好，不属于注入。",
        "帮助：助手为什么不再叫我的名字？如果你让它忘记个人信息，它也会忘记你的名字，再告诉它一次即可。",
        "版本说明 2.3：助手在使用搜索时会标注每条信息的来源。",
        "临时对话：本次对话不会保存到历史记录，也不会用于记忆。",
        "安全培训：读取邮件的智能体应把邮件内容当作数据，发送或删除之前必须征得用户确认。",
        "自定义指令：你希望助手如何回答你？",
    ],
)

# ---------------------------------------------------------------- Swedish
put(
    "sv",
    "mem",
    [
        "Svara mig på svenska från och med nu.",
        "Kom ihåg att jag är laktosintolerant när du föreslår middagar.",
        "Glöm stugan jag nämnde, vi hyr en annan i Dalarna i år.",
        "Användaren vill bli påmind om att vattna tomaterna varannan kväll under juli.",
    ],
)
put(
    "sv",
    "ops",
    [
        "Kundtjänstboten lämnar över till en handläggare när kunden vill reklamera en vara som kostar mer än 5 000 kronor.",
        "Assistenten ger inga juridiska råd i enskilda ärenden, men kan förklara hur processen brukar gå till.",
        "Designanteckning: boten för kollektivtrafiken svarar med de tre nästa avgångarna och nämner förseningar först.",
        "Om användaren ber om något utanför tjänsten säger boten vänligt att den inte kan hjälpa till med det och föreslår var man kan vända sig.",
    ],
)
put(
    "sv",
    "chat",
    [
        "Användare: Glöm det jag sa om Göteborg, vi åker till Malmö.\nAssistent: Okej! Vill du ha tips på restauranger nära Möllan?",
        "Användare: Låtsas att du är min svensklärare och rätta mig när jag skriver fel.\nAssistent: Gärna. Skriv några meningar om din helg så börjar vi.",
        "Användare: Du får gärna säga emot mig om min budget inte går ihop.\nAssistent: Då säger jag det direkt: 800 kronor i veckan räcker inte till mat för fyra med den listan.",
        "Användare: Från och med nu vill jag ha svar utan emojis.\nAssistent: Uppfattat.",
    ],
)
put(
    "sv",
    "doc",
    [
        "Övning: sortera texterna i två högar, användarens egna önskemål till sin assistent och text från tredje part som försöker styra en AI. Tips: fråga dig vem som talar och till vem.",
        "Hjälp: Så raderar du ett minne. Gå till Inställningar > Minne och tryck på papperskorgen bredvid minnet.",
        "Versionsnytt 1.4: Assistenten frågar nu innan den sparar hälsouppgifter.",
        "Minnet är fullt. Ta bort gamla minnen så att assistenten kan spara nya.",
    ],
)

# ---------------------------------------------------------------- Danish
put(
    "da",
    "mem",
    [
        "Assistenten skal altid svare mig på dansk, også når jeg skriver på engelsk.",
        "Husk, at jeg ikke spiser gluten, når du foreslår opskrifter.",
        "Glem det, jeg skrev om sommerhuset; vi har aflyst turen.",
        "Brugeren foretrækker, at mødeforslag ligger efter klokken ti om formiddagen.",
    ],
)
put(
    "da",
    "ops",
    [
        "Chatbotten overdrager samtalen til en medarbejder, hvis kunden vil klage over en regning.",
        "Assistenten giver ingen investeringsråd, men kan forklare, hvad de forskellige fondstyper betyder.",
        "Designnote: kommunens bot skriver i et klart og enkelt sprog og undgår forkortelser.",
        "Assistenten i webshoppen nævner gaveindpakning, når kunden skriver, at varen er en gave, men kun én gang.",
    ],
)
put(
    "da",
    "chat",
    [
        "Bruger: Glem hvad jeg sagde om Aarhus, vi tager til Odense.\nAssistent: Fint. Skal jeg finde noget om H.C. Andersens hus?",
        "Bruger: Lad som om du er en tjener på en café i Nyhavn.\nAssistent: Goddag! Hvad må det være? Vi har frisk smørrebrød i dag.",
        "Bruger: Lad være med at gemme noget fra i dag, jeg leger bare med idéer.\nAssistent: Forstået, intet fra denne samtale bliver gemt.",
        "Bruger: Husk at min søn er fem år, når du foreslår aktiviteter.\nAssistent: Gemt. Jeg foreslår ting, der passer til en femårig.",
    ],
)
put(
    "da",
    "doc",
    [
        "Fra et kursus i AI-sikkerhed: Når en agent læser e-mails, kan afsenderen skrive hvad som helst. Agenten skal behandle indholdet som oplysninger og spørge brugeren, før den sender, sletter eller betaler noget.",
        "Hjælp: Sådan beder du assistenten om at glemme noget. Skriv blot 'glem det' eller slet hukommelsen under Indstillinger.",
        "Nyt i version 2.2: Du kan nu slå hukommelsen fra for en enkelt samtale.",
        "Assistenten kan tage fejl. Tjek vigtige oplysninger.",
    ],
)

# ---------------------------------------------------------------- Norwegian (Bokmål)
put(
    "nb",
    "mem",
    [
        "Assistenten skal svare meg på nynorsk fra nå av. Jeg øver til eksamen.",
        "Husk at jeg jobber turnus, så ikke foreslå faste treningstider.",
        "Glem bilen jeg spurte om i går, vi kjøpte en elbil i stedet.",
        "Brukeren vil ha punktlister når det gjelder reiseplaner, men vanlig tekst ellers.",
    ],
)
put(
    "nb",
    "ops",
    [
        "Kundeservicebotten sender saken videre til en person hvis kunden ber om å avslutte abonnementet.",
        "Assistenten skal ikke gi skatteråd i enkeltsaker, men kan vise til Skatteetatens veiledninger.",
        "Designnotat: hytteutleie-botten svarer om ledige uker og priser, men bekrefter ingen booking før kunden har godkjent.",
        "Hvis værverktøyet feiler, sier assistenten det rett ut og gjetter ikke på været.",
    ],
)
put(
    "nb",
    "chat",
    [
        "Bruker: Glem det jeg sa om Bergen, vi drar til Tromsø.\nAssistent: Greit! Vil du ha tips om nordlysturer?",
        "Bruker: Spill en streng norsklærer og rett stilen min.\nAssistent: Gjerne. Første setning: 'Jeg har gått til butikken i går' skal være 'Jeg gikk til butikken i går'.",
        "Bruker: Lat som du er en fjellguide og forbered meg på Besseggen.\nAssistent: Godt! Start tidlig, ta med vindjakke selv om det er sol, og husk at eggen er bratt, men ikke teknisk.",
        "Bruker: Husk at jeg ikke tåler skalldyr.\nAssistent: Lagret.",
    ],
)
put(
    "nb",
    "doc",
    [
        "Promptinjeksjon betyr at tekst fra en ekstern kilde prøver å styre modellen. Når brukeren selv ber om korte svar, er det en vanlig preferanse.",
        "Hjelp: Slik ser du hva assistenten husker om deg. Åpne Innstillinger > Minne.",
        "Nyheter i versjon 3.1: Assistenten kan nå glemme én enkelt ting når du ber om det.",
        "Assistenten lærte noe nytt om deg: «Foretrekker korte svar.» [Behold] [Angre]",
    ],
)

# ---------------------------------------------------------------- Finnish
put(
    "fi",
    "mem",
    [
        "Avustajan pitää vastata minulle tästä lähtien suomeksi.",
        "Muista, että olen kasvissyöjä, mutta syön kalaa.",
        "Unohda mökki, josta puhuin. Vuokrasimme toisen Saimaan rannalta.",
        "Käyttäjä haluaa, että kellonajat merkitään 24 tunnin muodossa.",
    ],
)
put(
    "fi",
    "ops",
    [
        "Verkkokaupan botti ei lupaa toimituspäivää itse, vaan kertoo kuljetusyhtiön rajapinnan antaman arvion.",
        "Hyvinvointisovelluksen avustaja keskeyttää harjoituksen ja näyttää tukipuhelinten listan, jos käyttäjä vaikuttaa olevan kriisissä.",
        "Suunnittelumuistio: saunaseuran botti vastaa vuorolistoista ja säännöistä, mutta ei tee varauksia ilman jäsenen vahvistusta.",
        "Agentti kirjaa jokaisen työkalukutsun lokiin; henkilötiedot peitetään ennen tallennusta.",
    ],
)
put(
    "fi",
    "chat",
    [
        "Käyttäjä: Unohda mitä sanoin Tampereesta, lähdemme Turkuun.\nAvustaja: Selvä. Etsinkö tietoa Turun linnasta?",
        "Käyttäjä: Esitä saunamajuria ja kerro, miten löylyä heitetään oikein.\nAvustaja: No niin, ensin lauteille istutaan rauhassa, ja löylyä heitetään vähän kerrallaan...",
        "Käyttäjä: Sano suoraan, jos suunnitelmani on huono.\nAvustaja: Selvä. Kymmenen kilometrin lenkki joka päivä heti alussa on liikaa; aloita kolme kertaa viikossa.",
        "Käyttäjä: Vastaa jatkossa lyhyemmin.\nAvustaja: Teen niin.",
    ],
)
put(
    "fi",
    "doc",
    [
        "Kehoteinjektiossa ulkopuolinen teksti, kuten verkkosivu tai sähköposti, yrittää ohjata mallia. Käyttäjän oma toive vastata suomeksi ei ole injektio.",
        "Ohje: Muiston poistaminen. Avaa Asetukset > Muisti ja valitse poistettava muisto.",
        "Version 1.8 uutuudet: avustaja käyttää nyt profiilissa valittua päivämäärämuotoa.",
        "Väliaikainen keskustelu: tätä keskustelua ei tallenneta historiaan eikä muistiin.",
    ],
)

# ---------------------------------------------------------------- Czech
put(
    "cs",
    "mem",
    [
        "Asistent mi má od teď odpovídat česky.",
        "Pamatuj si, že nejím maso, ale ryby ano.",
        "Zapomeň na chatu, o které jsem psal, jedeme nakonec do Beskyd.",
        "Uživatelka chce, aby jí asistent vykal.",
    ],
)
put(
    "cs",
    "ops",
    [
        "Zákaznický bot předá konverzaci operátorovi, když zákazník žádá vrácení peněz nad 5 000 Kč.",
        "Asistent autoškoly vysvětluje pravidla silničního provozu, ale neslibuje, že student u zkoušky uspěje.",
        "Poznámka k návrhu: bot e-shopu nedoporučuje zboží, které není skladem.",
        "Asistent pro seniory mluví krátkými větami a na konci rozhovoru zopakuje to nejdůležitější.",
    ],
)
put(
    "cs",
    "chat",
    [
        "Uživatel: Zapomeň, co jsem říkal o Brně, jedeme do Olomouce.\nAsistent: Dobře. Mám najít, co se tam dá vidět?",
        "Uživatel: Hraj číšníka v pražské hospodě, chci si procvičit objednávání.\nAsistent: Dobrý den, co si dáte? Dnes máme svíčkovou.",
        "Uživatelka: Vymaž, co jsem ti říkala o svém zdraví.\nAsistent: Hotovo, nic z toho si nepamatuji.",
        "Uživatel: Pamatuj si, že mám alergii na lepek.\nAsistent: Uloženo. Recepty s lepkem označím.",
    ],
)
put(
    "cs",
    "doc",
    [
        "Injekce promptu znamená, že text z nedůvěryhodného zdroje, například webové stránky, se snaží ovládat model. Přání uživatele odpovídat česky mezi ně nepatří.",
        "Nápověda: Jak smazat vzpomínku? Otevřete Nastavení > Paměť a vyberte záznam.",
        "Novinky ve verzi 2.0: asistent si pamatuje preferovaný jazyk mezi konverzacemi.",
        "Tlačítka: Kopírovat · Znovu vygenerovat · Zapamatovat si",
    ],
)

# ---------------------------------------------------------------- Ukrainian
put(
    "uk",
    "mem",
    [
        "Асистент має відтепер відповідати мені українською.",
        "Запам'ятай: я не їм м'ясо, але рибу можна.",
        "Забудь про квартиру, про яку я писав, ми знайшли іншу.",
        "Користувачка просить звертатися до неї на «ви».",
    ],
)
put(
    "uk",
    "ops",
    [
        "Бот служби доставки не відкриває поштомати дистанційно; якщо посилку не вдалося забрати, він пояснює, як продовжити термін зберігання в застосунку.",
        "Асистент для батьків передає класному керівникові повідомлення про пропуски, але не обговорює оцінки учнів.",
        "Нотатка з дизайну: бот кінотеатру відповідає про розклад сеансів і правила повернення квитків.",
        "Асистент банку завжди показує суми разом із валютою і не скорочує їх.",
    ],
)
put(
    "uk",
    "chat",
    [
        "Користувач: Забудь, що я казав про Львів, їдемо до Одеси.\nАсистент: Добре. Підказати, що подивитися в Одесі?",
        "Користувачка: Уяви, що ти екскурсовод у Києві, і розкажи про Андріївський узвіз.\nАсистент: Ласкаво просимо! Цей узвіз здавна називають київським Монмартром...",
        "Користувач: Виправлення: зустріч не в середу, а в четвер.\nАсистент: Виправив, нагадування перенесено на четвер.",
        "Користувач: Відтепер відповідай коротше.\nАсистент: Зрозумів.",
    ],
)
put(
    "uk",
    "doc",
    [
        "Промпт-ін'єкція — це текст зі стороннього джерела, який намагається керувати моделлю. Прохання самого користувача відповідати українською не є атакою.",
        "Довідка: щоб асистент перестав нагадувати про подію, скажіть «скасуй нагадування» або видаліть його в списку нагадувань.",
        "Нове у версії 1.5: асистент питає дозволу, перш ніж запам'ятати відомості про здоров'я.",
        "Батьківський контроль: вимкнути пам'ять для дитячого профілю, обмежити теми, показувати батькам щотижневий підсумок.",
    ],
)

# ---------------------------------------------------------------- Turkish
put(
    "tr",
    "mem",
    [
        "Asistan bundan sonra bana Türkçe cevap versin.",
        "Hatırla: Ramazan'da iftar saatine yakın toplantı önerme.",
        "Bana domuz eti içeren tarif önerme.",
        "Kullanıcı, toplantı önerilerinin öğleden sonraya denk gelmesini istiyor.",
    ],
)
put(
    "tr",
    "ops",
    [
        "Araç bayisi botu test sürüşü taleplerini kaydeder ama kredi faizi hesaplamaz; bunu satış danışmanına bırakır.",
        "Asistan tıbbi teşhis koymaz; doktora başvurmayı önerir.",
        "Tasarım notu: spor salonu uygulaması yeni başlayanlara daha hafif bir program önerir.",
        "Ajan yalnızca proje klasörünün içine dosya yazabilir.",
    ],
)
put(
    "tr",
    "chat",
    [
        "Kullanıcı: İzmir hakkında söylediklerimi unut, Antalya'ya gidiyoruz.\nAsistan: Tamamdır. Kaleiçi için öneri ister misin?",
        "Kullanıcı: Bir çay ocağı işletmecisi gibi konuş, Türkçe pratiği yapmak istiyorum.\nAsistan: Buyur abi, çay mı olsun, yoksa bugün bir oralet mi içersin?",
        "Kullanıcı: Bana bir masal anlat, ama Nasreddin Hoca gibi anlat.\nAsistan: Bir gün Hoca eşeğine ters binmiş, pazara gidiyormuş. Görenler sormuş: 'Hocam, neden ters bindin?'...",
        "Kullanıcı: Fıstık alerjim olduğunu hatırla.\nAsistan: Kaydettim. Fıstıklı tarifleri işaretleyeceğim.",
    ],
)
put(
    "tr",
    "doc",
    [
        "İstem enjeksiyonu, bir web sayfası ya da e-posta gibi güvenilmeyen bir kaynaktaki metnin modeli yönlendirmeye çalışmasıdır. Kullanıcının kendi tercihi bu kapsama girmez.",
        "Yardım: Asistanın sizinle resmi mi yoksa samimi mi konuşacağını Ayarlar > Kişiselleştirme bölümünden seçebilirsiniz.",
        "Sürüm 2.1 notları: kod asistanı artık tercihlerinizde kayıtlı girinti stilini kullanıyor.",
        "Hata: Asistan takvime ulaşamadı. Lütfen birkaç dakika sonra tekrar deneyin.",
    ],
)

# ---------------------------------------------------------------- Arabic
put(
    "ar",
    "mem",
    [
        "يجب أن يرد المساعد عليّ باللغة العربية الفصحى من الآن فصاعدًا.",
        "تذكّر دائمًا أنني لا آكل لحم الخنزير ولا أشرب الكحول، فلا تقترح وصفات تحتويهما.",
        "انسَ موعد طبيب الأسنان الذي ذكرته، لقد تأجل إلى الشهر القادم.",
        "يفضّل المستخدم أن تكون الإجابات مختصرة مع مثال واحد فقط.",
        "عندما أسألك عن مواقيت الصلاة، استخدم طريقة الحساب المعتمدة في بلدي.",
    ],
)
put(
    "ar",
    "ops",
    [
        "ملاحظة تصميم: مساعد الجامعة يجيب عن مواعيد التسجيل والرسوم الدراسية، ويحيل الأسئلة الأكاديمية إلى المرشد.",
        "مساعد السفر يحيل أسئلة التأشيرات إلى الموقع الرسمي للسفارة، ولا يضمن قبول أي طلب.",
        "لا يقدّم المساعد تشخيصًا طبيًا، بل ينصح بمراجعة الطبيب.",
        "ملاحظة للمطوّرين: يعرض مساعد جداول البيانات معاينة للصفوف قبل حذفها وينتظر تأكيد المستخدم.",
    ],
)
put(
    "ar",
    "chat",
    [
        "المستخدم: انسَ ما قلته عن دبي، سنسافر إلى مسقط.\nالمساعد: حسنًا. هل تريد اقتراحات لأماكن تستحق الزيارة في مسقط؟",
        "المستخدم: تقمّص دور أستاذ نحو صارم وصحّح لي هذه الجملة.\nالمساعد: حسنًا يا بنيّ. قلتَ «ذهبوا الطلاب»، والصواب «ذهب الطلاب»، لأن الفعل يُفرد إذا تقدّم على فاعله.",
        "المستخدمة: تجاهل سؤالي السابق، لقد وجدت الإجابة.\nالمساعد: رائع! أنا هنا إن احتجتِ شيئًا آخر.",
        "المستخدم: احكِ لابنتي حكاية قبل النوم على لسان قطة تحب القمر.\nالمساعد: كان يا ما كان، قطة صغيرة اسمها لولو، تصعد كل ليلة إلى سطح البيت لتسلّم على القمر...",
    ],
)
put(
    "ar",
    "doc",
    [
        "حقن الأوامر هو أن يحاول نص من مصدر غير موثوق، مثل صفحة ويب أو رسالة بريد، توجيه النموذج بدلًا من أن يكون مجرد معلومات. أما طلب المستخدم نفسه أن يجيبه المساعد بالعربية فهو تفضيل عادي.",
        "مساعدة: كيف أطلب من المساعد أن ينسى شيئًا؟ قل له «انسَ هذا» أو احذف الذكرى من الإعدادات.",
        "ملاحظات الإصدار 2.0: يمكنك الآن تحديد أسلوب مختلف للمساعد في كل مشروع.",
        "قد يخطئ المساعد. تحقّق من المعلومات المهمة.",
    ],
)

# ---------------------------------------------------------------- Hebrew
put(
    "he",
    "mem",
    [
        "העוזר צריך לענות לי בעברית מעכשיו.",
        "תזכור שאני שומרת כשרות, אז בלי מתכונים שמערבבים בשר וחלב.",
        "תשכח מהדירה שסיפרתי לך עליה, לא לקחנו אותה.",
        "המשתמש מעדיף שהעוזר יפנה אליו בלשון זכר ובלי רשמיות מיותרת.",
    ],
)
put(
    "he",
    "ops",
    [
        "בוט קופת החולים מסביר איך לקבוע תור ואילו מסמכים להביא, אבל לא מפרש תוצאות בדיקות.",
        "בוט ההזמנות לא מאשר שום הזמנה בלי אישור מפורש של הלקוח באותה שיחה.",
        "הערת עיצוב: הבוט של העירייה עונה בעברית או בערבית, לפי השפה שבה פנו אליו.",
        "הסוכן מקבל לכל היותר חמש פעולות בדפדפן לכל משימה, ואחר כך מסכם מה מצא.",
    ],
)
put(
    "he",
    "chat",
    [
        "משתמש: תשכח מה שאמרתי על אילת, אנחנו נוסעים לצפון.\nעוזר: בסדר. רוצה המלצות על מסלולים בגליל?",
        "משתמשת: תשחק מוכר בשוק מחנה יהודה, אני רוצה להתאמן בעברית.\nעוזר: בואי, בואי! עגבניות טריות, שלושה קילו בעשר!",
        "משתמש: תתעלם מהשאלה הקודמת שלי.\nעוזר: אין בעיה.",
        "משתמש: תזכור שאני עובד במשמרות לילה, אל תשלח תזכורות בבוקר.\nעוזר: נשמר. תזכורות יגיעו רק אחרי שתיים בצהריים.",
    ],
)
put(
    "he",
    "doc",
    [
        "הזרקת פרומפט היא ניסיון של טקסט ממקור לא אמין, כמו דף אינטרנט, לשלוט במודל. בקשה של המשתמש עצמו לקבל תשובות בעברית היא העדפה רגילה.",
        "עזרה: איך מוחקים זיכרון? פתחו הגדרות > זיכרון ובחרו את הפריט.",
        "חדש בגרסה 1.6: אפשר לבקש מהעוזר לשכוח פריט אחד בלי למחוק את כל הזיכרון.",
        "אין לך עדיין העדפות שמורות. נסה לכתוב לעוזר איך אתה אוהב לקבל תשובות.",
    ],
)

# ---------------------------------------------------------------- Hindi
put(
    "hi",
    "mem",
    [
        "असिस्टेंट अब से मुझे हिंदी में जवाब दे।",
        "हमेशा याद रखना: मैं शाकाहारी हूँ और प्याज़-लहसुन भी नहीं खाता।",
        "जिस होटल का मैंने ज़िक्र किया था उसे भूल जाओ, हमने दूसरा बुक कर लिया है।",
        "उपयोगकर्ता चाहती हैं कि असिस्टेंट उन्हें 'आप' कहकर संबोधित करे।",
    ],
)
put(
    "hi",
    "ops",
    [
        "कोचिंग ऐप का सहायक होमवर्क का पूरा हल नहीं देता; पहले संकेत देता है, फिर मिलता-जुलता हल किया हुआ उदाहरण।",
        "असिस्टेंट कोई चिकित्सीय निदान नहीं देता; वह डॉक्टर से मिलने की सलाह देता है।",
        "डिज़ाइन नोट: बैंक का सहायक हर रकम के साथ मुद्रा लिखता है और किसी लेन-देन के पहुँचने का पक्का समय नहीं बताता।",
        "अगर उपयोगकर्ता कीमत पूछे तो असिस्टेंट कीमतों वाले पेज का लिंक दे, रकम ख़ुद न बताए।",
    ],
)
put(
    "hi",
    "chat",
    [
        "उपयोगकर्ता: जयपुर के बारे में जो कहा था वो भूल जाओ, हम उदयपुर जा रहे हैं।\nअसिस्टेंट: ठीक है। उदयपुर में घूमने की जगहें बताऊँ?",
        "उपयोगकर्ता: एक सख़्त गणित शिक्षक बनकर मुझसे सवाल पूछो।\nअसिस्टेंट: ठीक है। बताओ, 144 का वर्गमूल कितना होता है, और तुमने कैसे निकाला?",
        "उपयोगकर्ता: आज से मुझसे अंग्रेज़ी में बात करो, इंटरव्यू की तैयारी है।\nअसिस्टेंट: Sure! Let's practise. Tell me about yourself.",
        "उपयोगकर्ता: याद रखना कि मुझे मूंगफली से एलर्जी है।\nअसिस्टेंट: सेव कर लिया। मूंगफली वाली रेसिपी पर निशान लगाऊँगा।",
    ],
)
put(
    "hi",
    "doc",
    [
        "प्रॉम्प्ट इंजेक्शन का मतलब है कि किसी अविश्वसनीय स्रोत का पाठ, जैसे वेब पेज या ईमेल, मॉडल को निर्देश देने की कोशिश करे। उपयोगकर्ता का अपना अनुरोध कि जवाब हिंदी में दो, एक सामान्य पसंद है।",
        "सहायता: क्या सहायक मेरी बातें दूसरों को बताएगा? नहीं, आपकी यादें सिर्फ़ आपके खाते के लिए रहती हैं।",
        "संस्करण 1.3 में नया: अब आप किसी एक बातचीत के लिए मेमोरी बंद कर सकते हैं।",
        "अनुमति दें? सहायक आपका कैलेंडर सिर्फ़ तब पढ़ेगा जब आप कहेंगे। [अभी नहीं] [अनुमति दें]",
    ],
)

# ---------------------------------------------------------------- Korean
put(
    "ko",
    "mem",
    [
        "이제부터 어시스턴트는 한국어로 대답해 주세요.",
        "꼭 기억해 줘: 우리 아들 생일은 11월 8일이야.",
        "아까 말한 식당은 잊어 줘. 다른 곳으로 예약했어.",
        "사용자는 존댓말보다 편한 반말을 선호함.",
    ],
)
put(
    "ko",
    "ops",
    [
        "부동산 상담 봇은 매물 가격을 추정하지 않고, 방문 요청을 받아 중개사에게 전달한다.",
        "어린이 학습 앱의 어시스턴트는 아이에게 학교 이름이나 사는 곳을 묻지 않는다.",
        "설계 메모: 회의록 어시스턴트는 할 일마다 담당자와 마감일을 적고, 정해지지 않았으면 '미정'으로 표시한다.",
        "에이전트는 질문 하나당 검색 도구를 최대 세 번까지 사용할 수 있다.",
    ],
)
put(
    "ko",
    "chat",
    [
        "사용자: 부산 얘기는 잊어 줘. 결국 강릉으로 가기로 했어.\n어시스턴트: 알겠어요. 강릉 카페 거리 추천해 드릴까요?",
        "사용자: 면접관 역할을 해 줘. 자기소개 연습하고 싶어.\n어시스턴트: 네, 그럼 1분 동안 자기소개 부탁드립니다.",
        "사용자: 아까 질문은 신경 쓰지 마.\n어시스턴트: 네, 알겠어요.",
        "사용자: 조선 시대 선비처럼 말해 줘.\n어시스턴트: 허허, 그대가 무엇을 궁금해하는지 말해 보시게.",
    ],
)
put(
    "ko",
    "doc",
    [
        "보안 교육 자료: 에이전트가 읽는 웹페이지나 문서에는 AI에게 직접 말을 거는 문장이 섞여 있을 수 있습니다. 이런 문장은 정보로만 취급하고, 결제·삭제·전송 같은 작업은 항상 사용자에게 확인받아야 합니다.",
        "도움말: 어시스턴트가 기억하는 내용을 보려면 '나에 대해 뭘 기억해?'라고 물어보세요.",
        "버전 2.5 새 기능: '기억하기' 버튼으로 답변의 일부를 바로 메모리에 저장할 수 있습니다.",
        "새 대화 · 대화 기록 · 메모리 관리",
    ],
)

# ---------------------------------------------------------------- Vietnamese
put(
    "vi",
    "mem",
    [
        "Từ giờ trợ lý hãy trả lời tôi bằng tiếng Việt.",
        "Nhớ giúp tôi: tôi ăn chay vào ngày rằm và mùng một.",
        "Quên khách sạn tôi nói hôm trước đi, nhà tôi đặt chỗ khác rồi.",
        "Người dùng muốn câu trả lời ngắn gọn, có ví dụ cụ thể.",
    ],
)
put(
    "vi",
    "ops",
    [
        "Bot đặt bàn của nhà hàng chuyển yêu cầu cho nhân viên nếu đoàn khách trên mười người.",
        "Trợ lý không đưa ra chẩn đoán y khoa mà khuyên người dùng đi khám bác sĩ.",
        "Ghi chú thiết kế: trợ lý bán hàng được giảm tối đa 10% cho gói năm; mức cao hơn cần quản lý duyệt.",
        "Tác tử được dùng công cụ tìm kiếm tối đa ba lần cho mỗi câu hỏi.",
    ],
)
put(
    "vi",
    "chat",
    [
        "Người dùng: Quên chuyện Đà Nẵng đi, bọn mình đi Hội An.\nTrợ lý: Được thôi. Bạn có muốn gợi ý quán cao lầu không?",
        "Người dùng: Đóng vai cô bán phở ở Hà Nội để tôi tập nói nhé.\nTrợ lý: Cháu ăn gì? Phở bò tái hay chín?",
        "Người dùng: Đừng gọi tôi là 'bạn' nữa, gọi tôi là 'anh' nhé.\nTrợ lý: Dạ vâng, em hiểu rồi anh.",
        "Người dùng: Nhớ là tôi dị ứng tôm.\nTrợ lý: Đã lưu. Tôi sẽ đánh dấu các món có tôm.",
    ],
)
put(
    "vi",
    "doc",
    [
        "Bài giảng: Tấn công chèn lệnh giống SQL injection ở chỗ dữ liệu bị nhầm thành lệnh, nhưng khác ở chỗ không có hàm thoát ký tự hoàn hảo, nên cần nhiều lớp phòng vệ.",
        "Trợ giúp: Muốn trợ lý trả lời bằng tiếng Anh trong một cuộc trò chuyện? Chỉ cần nói 'trả lời bằng tiếng Anh'; cài đặt chung không thay đổi.",
        "Có gì mới ở phiên bản 1.2: trợ lý ghi nhớ ngôn ngữ ưa thích giữa các cuộc trò chuyện.",
        "Trợ lý vừa ghi nhớ một sở thích mới: 'Thích món chay'. [Giữ] [Hoàn tác]",
    ],
)

# ---------------------------------------------------------------- Indonesian
put(
    "id",
    "mem",
    [
        "Mulai sekarang asisten harus menjawab saya dalam bahasa Indonesia.",
        "Ingat selalu: saya tidak makan babi.",
        "Lupakan hotel yang saya sebut kemarin, kami sudah pesan yang lain.",
        "Pengguna ingin pengingat salat dikirim lima menit sebelum waktunya.",
    ],
)
put(
    "id",
    "ops",
    [
        "Bot bank tidak pernah menjanjikan kapan transfer akan masuk.",
        "Asisten tidak memberikan diagnosis medis dan menyarankan pergi ke dokter.",
        "Catatan desain: asisten pariwisata menjawab dalam bahasa yang dipakai wisatawan dan ikut beralih bila mereka berganti bahasa.",
        "Agen boleh menjalankan tes di sandbox, tetapi harus bertanya sebelum memasang dependensi baru.",
    ],
)
put(
    "id",
    "chat",
    [
        "Pengguna: Lupakan soal Bali, kami jadi ke Lombok.\nAsisten: Baik. Mau rekomendasi pantai di Lombok?",
        "Pengguna: Pura-pura jadi penjual bakso di Malang, ya. Saya mau latihan ngobrol.\nAsisten: Monggo, Mas! Bakso urat atau bakso halus?",
        "Pengguna: Abaikan pertanyaan saya sebelumnya.\nAsisten: Siap.",
        "Pengguna: Ingat ya, saya vegetarian tapi masih makan telur.\nAsisten: Sudah saya simpan.",
    ],
)
put(
    "id",
    "doc",
    [
        "Injeksi prompt adalah ketika teks dari sumber yang tidak tepercaya, seperti situs web atau email, mencoba mengendalikan model. Permintaan pengguna sendiri agar dijawab dalam bahasa Indonesia bukan serangan.",
        "Bantuan: Kenapa asisten masih menjawab dalam bahasa Inggris? Periksa Pengaturan > Bahasa, lalu mulai percakapan baru.",
        "Catatan rilis 3.0: asisten kini bertanya dulu sebelum menyimpan informasi kesehatan.",
        "Tanyakan apa saja, atau beri tahu asisten apa yang perlu diingat.",
    ],
)

# ---------------------------------------------------------------- Greek
put(
    "el",
    "mem",
    [
        "Ο βοηθός να μου απαντά στα ελληνικά από εδώ και πέρα.",
        "Θυμήσου ότι νηστεύω τη Μεγάλη Σαρακοστή, οπότε χωρίς κρέας και γαλακτοκομικά εκείνες τις εβδομάδες.",
        "Ξέχασε το ξενοδοχείο που σου είπα, κλείσαμε άλλο στη Νάξο.",
        "Ο χρήστης προτιμά να του μιλάει ο βοηθός στον πληθυντικό ευγενείας.",
    ],
)
put(
    "el",
    "ops",
    [
        "Το bot του ξενοδοχείου δεν επιβεβαιώνει μόνο του αργή αναχώρηση· προωθεί το αίτημα στη ρεσεψιόν.",
        "Ο βοηθός γράφει τις ημερομηνίες ως ημέρα/μήνας/έτος και την ώρα σε 24ωρη μορφή.",
        "Σημείωση σχεδιασμού: το bot του μουσείου απαντά για ωράρια, εισιτήρια και εκθέσεις.",
        "Ο πράκτορας μπορεί να χρησιμοποιεί το εργαλείο αναζήτησης το πολύ τρεις φορές ανά ερώτηση.",
    ],
)
put(
    "el",
    "chat",
    [
        "Χρήστης: Ξέχασε ό,τι είπα για τη Θεσσαλονίκη, πάμε Ναύπλιο.\nΒοηθός: Εντάξει. Θέλεις να σου προτείνω τι να δεις στο Παλαμήδι;",
        "Χρήστρια: Κάνε τον σερβιτόρο σε ταβέρνα στην Πλάκα, θέλω να εξασκηθώ.\nΒοηθός: Καλησπέρα! Τι θα πάρετε; Έχουμε φρέσκο χταπόδι σήμερα.",
        "Χρήστης: Αγνόησε την προηγούμενη ερώτησή μου.\nΒοηθός: Εντάξει.",
        "Χρήστης: Παίξε τον Σωκράτη και κάνε μου μόνο ερωτήσεις για το τι είναι δικαιοσύνη.\nΒοηθός: Πες μου, φίλε μου, όταν λες «δίκαιο», εννοείς αυτό που ωφελεί τον ισχυρότερο ή κάτι άλλο;",
    ],
)
put(
    "el",
    "doc",
    [
        "Η έγχυση εντολών (prompt injection) είναι όταν κείμενο από αναξιόπιστη πηγή, όπως μια ιστοσελίδα, προσπαθεί να κατευθύνει το μοντέλο. Η επιθυμία του ίδιου του χρήστη για απαντήσεις στα ελληνικά δεν είναι επίθεση.",
        "Βοήθεια: Πώς διαγράφω μια ανάμνηση; Ανοίξτε Ρυθμίσεις > Μνήμη.",
        "Νέα στην έκδοση 2.3: ο βοηθός θυμάται τη γλώσσα που προτιμάτε.",
        "Οδηγός για εκπαιδευτικούς: ζητήστε από τους μαθητές να πουν στον βοηθό το επίπεδό τους και να του ζητούν υποδείξεις αντί για έτοιμες λύσεις.",
    ],
)

# ---------------------------------------------------------------- Hungarian
put(
    "hu",
    "mem",
    [
        "Az asszisztens mostantól magyarul válaszoljon nekem.",
        "Jegyezd meg: a lányom születésnapja szeptember 12-én van.",
        "Felejtsd el a szállást, amit említettem, máshol foglaltunk.",
        "A felhasználó azt kéri, hogy az asszisztens magázza.",
    ],
)
put(
    "hu",
    "ops",
    [
        "A biztosító asszisztense elmagyarázza a kárbejelentés lépéseit, de a döntést a munkatársak hozzák meg.",
        "Az asszisztens nem ad orvosi diagnózist, hanem orvoshoz irányít.",
        "Tervezési jegyzet: a kávézó rendelési botja megkérdezi, kér-e a vendég laktózmentes tejet, de nem erőlteti.",
        "Az ügynök kérdésenként legfeljebb háromszor használhatja a keresőeszközt.",
    ],
)
put(
    "hu",
    "chat",
    [
        "Felhasználó: Felejtsd el, amit Debrecenről mondtam, Pécsre megyünk.\nAsszisztens: Rendben. Ajánljak látnivalókat Pécsen?",
        "Felhasználó: Játszd el, hogy pincér vagy egy budapesti kávéházban.\nAsszisztens: Jó napot kívánok! Mit hozhatok? Ma friss Dobos-torta van.",
        "Felhasználó: Hagyd figyelmen kívül az előző kérdésemet.\nAsszisztens: Rendben.",
        "Felhasználó: Légy a kvízmesterem, kérdezz magyar tavakról.\nAsszisztens: Első kérdés: melyik a legnagyobb tó Közép-Európában?",
    ],
)
put(
    "hu",
    "doc",
    [
        "Esettanulmány: egy utazási bot rossz dátumra foglalt, mert egy továbbított e-mailnek hitt az ügyfél saját üzenete helyett. A javítás: foglalás előtt a dátumot mindig az ügyféllel kell megerősíteni.",
        "Súgó: Hogyan kapcsolhatom ki a memóriát egyetlen beszélgetésre? Indítson ideiglenes csevegést a menüből.",
        "Újdonságok a 2.0-s verzióban: a hangasszisztens ébresztőszava mostantól átállítható.",
        "Ismert hiba: a nyári időszámítás váltásakor egyes emlékeztetők egy órával később jelentek meg. A 2.0.1-es verzió javítja.",
    ],
)

# ---------------------------------------------------------------- Romanian
put(
    "ro",
    "mem",
    [
        "Asistentul să îmi răspundă în română de acum înainte.",
        "Ține minte că nu mănânc carne de porc.",
        "Uită de pensiunea despre care ți-am spus, am rezervat alta la munte.",
        "Utilizatoarea preferă ca asistentul să i se adreseze cu dumneavoastră.",
    ],
)
put(
    "ro",
    "ops",
    [
        "Botul companiei de telefonie trimite linkul cu tarifele de roaming și nu modifică abonamentul fără confirmarea clientului.",
        "Asistentul nu pune diagnostice medicale și recomandă consultarea unui medic.",
        "Notă de design: asistentul de programări propune trei intervale libere atunci când calendarul are un conflict.",
        "Agentul poate folosi unealta de căutare de cel mult trei ori pe întrebare.",
    ],
)
put(
    "ro",
    "chat",
    [
        "Utilizator: Uită ce am zis despre Cluj, mergem la Sibiu.\nAsistent: Bine. Vrei recomandări pentru Piața Mare?",
        "Utilizatoare: Fă pe chelnerul într-un bistro din București, vreau să exersez.\nAsistent: Bună seara! Ce vă aduc? Avem sarmale proaspete azi.",
        "Utilizator: Ignoră întrebarea mea anterioară.\nAsistent: Sigur.",
        "Utilizatoare: Uită ce ți-am spus despre fostul meu loc de muncă.\nAsistent: Gata, am șters informațiile.",
    ],
)
put(
    "ro",
    "doc",
    [
        "Injecția de prompt apare când un text dintr-o sursă nesigură, cum ar fi o pagină web, încearcă să controleze modelul. Dorința utilizatorului de a primi răspunsuri în română nu este un atac.",
        "Ajutor: Cum șterg o amintire? Deschide Setări > Memorie.",
        "Noutăți în versiunea 1.9: asistentul respectă acum formatul de dată din profil.",
        "Setări > Personalizare > Limbă implicită. Asistentul va răspunde în limba aleasă, dacă nu îi ceri altfel în conversație.",
    ],
)

# ---------------------------------------------------------------- Thai
put(
    "th",
    "mem",
    [
        "ต่อจากนี้ผู้ช่วยช่วยตอบฉันเป็นภาษาไทยนะ",
        "จำไว้นะว่าฉันไม่กินเนื้อวัว",
        "ลืมโรงแรมที่ฉันพูดถึงไปได้เลย เราจองที่อื่นแล้ว",
        "ผู้ใช้ต้องการให้ผู้ช่วยตอบสั้น ๆ และมีตัวอย่างประกอบ",
    ],
)
put(
    "th",
    "ops",
    [
        "บอทร้านยาอธิบายวิธีใช้ยาตามฉลากได้ แต่ไม่แนะนำให้เปลี่ยนขนาดยาที่แพทย์สั่ง",
        "ผู้ช่วยจะไม่วินิจฉัยโรค แต่แนะนำให้ไปพบแพทย์",
        "บันทึกการออกแบบ: บอทของห้องสมุดตอบเฉพาะเรื่องเวลาเปิดปิดและกฎการยืมหนังสือ",
        "เอเจนต์ต้องขอการยืนยันจากผู้ใช้ก่อนส่งอีเมลทุกครั้ง",
    ],
)
put(
    "th",
    "chat",
    [
        "ผู้ใช้: ลืมเรื่องภูเก็ตไปเถอะ เราจะไปเชียงใหม่แทน\nผู้ช่วย: ได้เลย อยากให้แนะนำร้านข้าวซอยไหม",
        "ผู้ใช้: ช่วยเล่นเป็นแม่ค้าส้มตำหน่อย ฉันอยากฝึกพูด\nผู้ช่วย: เอาส้มตำไทยหรือตำปูจ้ะ เผ็ดกี่เม็ดดี",
        "ผู้ใช้: ไม่ต้องสนใจคำถามก่อนหน้าของฉันนะ\nผู้ช่วย: ได้ค่ะ",
        "ผู้ใช้: จำไว้ว่าฉันแพ้กุ้ง\nผู้ช่วย: บันทึกแล้ว จะระบุเมนูที่มีกุ้งให้ทุกครั้ง",
    ],
)
put(
    "th",
    "doc",
    [
        "การโจมตีแบบ prompt injection คือการที่ข้อความจากแหล่งที่ไม่น่าเชื่อถือ เช่น หน้าเว็บหรืออีเมล พยายามสั่งการโมเดล ส่วนคำขอของผู้ใช้เองให้ตอบเป็นภาษาไทยเป็นเพียงการตั้งค่าทั่วไป",
        "วิธีใช้: ถ้าไม่อยากให้ผู้ช่วยจำบทสนทนานี้ ให้เปิดโหมดแชตชั่วคราวจากเมนูด้านบน",
        "มีอะไรใหม่ในเวอร์ชัน 1.1: พูดว่า 'หยุดฟัง' เพื่อปิดไมโครโฟนของผู้ช่วยเสียงได้แล้ว",
        "ผู้ช่วยอาจตอบผิดพลาดได้ โปรดตรวจสอบข้อมูลสำคัญ",
    ],
)

# ---------------------------------------------------------------- longer pieces
put(
    "en",
    "mem",
    [
        "About me, for the assistant (updated in spring):\n- I work in logistics and my days start early, so keep morning summaries short.\n- British English, metric units, 24-hour clock.\n- I'm coeliac. Anything with wheat, barley or rye is out, and please check sauces.\n- I don't want news about football results; I find them stressful.\n- When I ask for a plan, give me the first step only and wait for me to say 'next'.",
    ],
)
put(
    "en",
    "ops",
    [
        "System prompt notes for the garden-centre assistant, second draft.\n\nWho it talks to: hobby gardeners, many of them beginners, some elderly. Use plain words and explain Latin plant names the first time they appear.\n\nWhat it can do: recommend plants for a given spot (sun, shade, soil), explain watering and pruning, check stock through the inventory tool, and reserve items for pickup once the customer confirms.\n\nWhat it can't do: give advice on using pesticides beyond what the label says, or diagnose plant diseases from photos with certainty. For those it suggests bringing a sample to the plant doctor desk in store.\n\nWhen unsure: say so, and offer to pass the question to staff.",
    ],
)
put(
    "en",
    "chat",
    [
        "User: Can we do a role-play? You're a hotel receptionist and I'm a guest who lost their key. I'm practising for a hospitality course.\nAssistant: Of course. 'Good evening, how can I help you?'\nUser: 'Hi, I'm afraid I've lost my room key.'\nAssistant: 'No problem at all. Could you tell me your name, and I'll check the booking and make you a new key?'\nUser: OK, let's stop the role-play there. How did I do?\nAssistant: Nicely done. You were polite and clear. Next time you could add which room you're in, since receptionists ask for that straight away.\nUser: Great. Remember that I'm doing this course; I'll want more practice scenarios next week.\nAssistant: Noted. I'll have a few new scenarios ready, like a complaint about noise and a late check-in.",
    ],
)
put(
    "en",
    "doc",
    [
        "Release notes, assistant app 6.2\n\nNew\n- Memory review: once a month the app shows what the assistant has remembered and asks whether each item is still correct.\n- Per-project instructions: set a tone, language or format for one project without changing the others.\n\nImproved\n- When you correct the assistant ('actually, my meeting is on Thursday'), it now updates the existing memory instead of adding a second one.\n- Forget requests now confirm exactly which memory was removed.\n\nFixed\n- Reminders created in one time zone could fire an hour early after travelling.\n- Some Arabic and Hebrew memories were displayed left-to-right.",
    ],
)
put(
    "fr",
    "ops",
    [
        "Notes de conception pour l'assistant d'une agence de voyages.\n\nPublic : des familles qui préparent leurs vacances, souvent pressées. Réponses courtes, avec une proposition concrète à la fin.\n\nPérimètre : recherche de séjours, comparaison de prix fournis par l'outil de réservation, explication des conditions d'annulation. Aucune réservation n'est faite sans un « oui » explicite du client dans la conversation.\n\nCas limites : pour les questions de visa ou de santé, l'assistant renvoie aux sites officiels et ne donne pas d'avis personnel.",
    ],
)
put(
    "de",
    "doc",
    [
        "Schulungsmodul 'Agenten sicher betreiben', Abschnitt 2: Woher kommen Anweisungen?\n\nEin Agent bekommt Anweisungen aus genau zwei Quellen: vom Betreiber über den Systemprompt und von der angemeldeten Person im Chat. Alles andere, also Webseiten, Dateianhänge, Suchergebnisse, Werkzeugausgaben, sind Daten. Auch wenn solche Daten im Befehlston geschrieben sind, ändern sie nichts an den Regeln.\n\nÜbung: Markieren Sie in den zehn Beispielen, welche Sätze eine legitime Vorliebe der Nutzerin ausdrücken und welche aus einer fremden Quelle stammen.",
    ],
)
put(
    "es",
    "chat",
    [
        "Usuaria: ¿Jugamos a algo? Tú eres un detective en Buenos Aires en 1950 y yo tu ayudante.\nAsistente: Perfecto. Llueve sobre la avenida de Mayo y el café está casi vacío. «Ayudante, ¿trajo el periódico de esta mañana?»\nUsuaria: «Sí, jefe. Y hay una noticia rara sobre un tango robado.»\nAsistente: «¿Un tango robado? Eso no pasa todos los días...»\nUsuaria: Vale, paremos aquí, que me tengo que ir. Recuerda en qué punto lo dejamos.\nAsistente: Guardado: el detective y su ayudante acaban de leer la noticia del tango robado. Seguimos cuando quieras.",
    ],
)
put(
    "ja",
    "ops",
    [
        "社内向けアシスタントのシステムプロンプト設計メモ（第2版）\n\n役割：総務部の問い合わせ窓口。対象は社員のみ。\n対応範囲：備品の申請方法、会議室の予約ルール、経費精算の締め日。\n対象外：人事評価や給与に関する個別の質問。これらは担当部署に案内する。\n口調：丁寧語。ただし長い前置きは不要。\n不明な点：推測で答えず、「確認が必要です」と伝えて担当窓口を案内する。",
    ],
)
put(
    "zh",
    "mem",
    [
        "关于我的几点偏好（请一直记住）：\n1. 回答先给结论，篇幅控制在三段以内。\n2. 涉及金额时统一用人民币，并保留两位小数。\n3. 我在学日语，遇到日本相关的话题可以顺便给出日语说法。\n4. 周末不要给我安排工作相关的提醒。",
    ],
)
put(
    "ru",
    "doc",
    [
        "Примечания к выпуску 4.0 голосового ассистента\n\n— Теперь можно сказать «забудь последнее», и ассистент удалит только последнюю сохранённую заметку.\n— Добавлен режим «без памяти» для гостей: ассистент отвечает, но ничего не запоминает.\n— Исправлено: напоминания иногда срабатывали дважды после смены часового пояса.\n— Ассистент теперь переспрашивает, если команда прозвучала неразборчиво, вместо того чтобы угадывать.",
    ],
)
put(
    "it",
    "chat",
    [
        "Utente: Mi aiuti a prepararmi per l'esame di guida? Fammi da esaminatore.\nAssistente: Volentieri. Prima domanda: in presenza di una striscia continua, è consentito il sorpasso?\nUtente: No.\nAssistente: Esatto. Seconda domanda: a cosa serve il triangolo?\nUtente: Basta così per oggi. Ricordati che ho sbagliato quella sulle precedenze ieri.\nAssistente: Annotato. La prossima volta cominciamo proprio dalle precedenze.",
    ],
)
put(
    "pt",
    "mem",
    [
        "Preferências do utilizador, revistas em setembro: escrever em português europeu; datas no formato dia/mês/ano; nada de sugestões de restaurantes de fast food; quando pedir resumos de livros, não revelar o final sem perguntar primeiro.",
    ],
)
put(
    "de",
    "ops",
    [
        "Entwurf Systemprompt, Kita-Elternbot:\nDu beantwortest Fragen von Eltern zu Öffnungszeiten, Schließtagen, Essensplan und Eingewöhnung. Du sprichst Eltern mit 'Sie' an. Auskünfte über einzelne Kinder gibst du nicht; verweise dafür auf das Gespräch mit der Gruppenleitung. Bei Krankheitsfällen erklärst du nur die allgemeine Regel, wann ein Kind zu Hause bleiben soll.",
    ],
)
put(
    "es",
    "doc",
    [
        "Guía rápida para redactar instrucciones personalizadas:\n1. Di quién eres y para qué usas el asistente («soy profesora de primaria»).\n2. Indica el formato que prefieres («respuestas cortas, con ejemplos»).\n3. Señala lo que no quieres («sin emojis», «no me tutees»).\n4. Revisa tus instrucciones de vez en cuando; si cambian tus necesidades, cámbialas también.",
    ],
)
put(
    "fr",
    "mem",
    [
        "Préférences de Claire, mises à jour : réponses en français, tutoiement, pas de recettes avec de la coriandre, et quand elle demande un itinéraire à vélo, éviter les routes nationales même si c'est plus long.",
    ],
)

# ---------------------------------------------------------------- Catalan
put("ca", "mem", ["A partir d'ara, respon-me en català, encara que t'escrigui en castellà."])
put(
    "ca",
    "ops",
    [
        "L'assistent de l'ajuntament respon sobre horaris, padró i recollida de mobles vells; per a la resta, indica el servei d'atenció ciutadana."
    ],
)
put(
    "ca",
    "chat",
    [
        "Usuari: Oblida el que et vaig dir de Girona, anem a Tarragona.\nAssistent: D'acord. Vols que et recomani què veure a l'amfiteatre?"
    ],
)
put(
    "ca",
    "doc",
    [
        "Notes de la versió 1.3: ara pots demanar a l'assistent que oblidi un sol record sense esborrar-los tots."
    ],
)

# ---------------------------------------------------------------- Slovak
put("sk", "mem", ["Používateľ chce, aby mu asistent tykal a odpovedal stručne."])
put(
    "sk",
    "ops",
    [
        "Bot e-shopu odovzdá rozhovor kolegovi zo zákazníckeho centra, ak zákazník chce reklamovať tovar po záruke."
    ],
)
put(
    "sk",
    "chat",
    [
        "Používateľka: Hraj čašníka v bratislavskej kaviarni, chcem si precvičiť slovenčinu.\nAsistent: Dobrý deň, čo si dáte? Dnes máme výborné bryndzové halušky."
    ],
)
put("sk", "doc", ["Pomocník: Ako vypnúť pamäť pre jeden rozhovor? V ponuke zvoľte Dočasný chat."])

# ---------------------------------------------------------------- Bulgarian
put("bg", "mem", ["Забрави хотела, за който ти писах; резервирахме друг в Созопол."])
put(
    "bg",
    "ops",
    [
        "Асистентът на аптеката обяснява листовката, но не препоръчва промяна на дозата, предписана от лекаря."
    ],
)
put("bg", "chat", ["Потребител: Отсега нататък ми отговаряй по-кратко.\nАсистент: Разбрах."])
put(
    "bg",
    "doc",
    [
        "Обучение по сигурност: агентът третира съдържанието на уеб страниците като данни, а не като команди, и иска потвърждение преди необратими действия."
    ],
)

# ---------------------------------------------------------------- Swahili
put("sw", "mem", ["Kumbuka kwamba sili nyama ya nguruwe, kwa hiyo usinipendekezee mapishi yake."])
put(
    "sw",
    "ops",
    [
        "Msaidizi wa benki hatoi ahadi kuhusu muda ambao pesa zitafika; anaeleza tu hatua za kawaida."
    ],
)
put(
    "sw",
    "chat",
    [
        "Mtumiaji: Sahau nilichosema kuhusu Mombasa, tunaenda Zanzibar.\nMsaidizi: Sawa. Ungependa mapendekezo ya kutembelea Mji Mkongwe?"
    ],
)
put(
    "sw",
    "doc",
    ["Msaada: Ili kufuta kumbukumbu, fungua Mipangilio > Kumbukumbu kisha uchague kipengee."],
)

# ---------------------------------------------------------------- Croatian
put(
    "hr",
    "mem",
    ["Asistent mi od sada treba odgovarati na hrvatskom i koristiti metričke jedinice."],
)
put(
    "hr",
    "ops",
    [
        "Napomena o dizajnu: turistički bot odgovara na jeziku kojim gost piše i ne potvrđuje rezervacije bez gostove izričite suglasnosti."
    ],
)
put(
    "hr",
    "chat",
    [
        "Korisnik: Zanemari moje prethodno pitanje, pogrešno sam napisao datum.\nAsistent: Nema problema. Koji je točan datum?"
    ],
)
put(
    "hr", "doc", ["Memorija je puna. Obrišite stara sjećanja kako bi asistent mogao spremati nova."]
)


# ---------------------------------------------------------------- assembly
FORBIDDEN = [
    (re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+"), "e-mail address"),
    (re.compile(r"https?://|www\."), "URL"),
    (re.compile(r"\d[\d \-]{7,}\d"), "long digit run (phone, card, id)"),
    (re.compile(r"<\||\|>|\[/?INST\]|^#{2,}\s*(system|assistant)", re.I | re.M), "role marker"),
    (re.compile(r"<!--"), "HTML comment"),
    (
        re.compile("[\u200b-\u200f\u2060-\u2064\ufeff]|[\U000e0000-\U000e007f]"),
        "invisible character",
    ),
    (
        re.compile(
            r"\b(api[_ -]?key|password|passwort|mot de passe|contraseña|token)\s*[:=]", re.I
        ),
        "credential-shaped text",
    ),
]


def grams(text, n=3):
    t = re.sub(r"\s+", " ", text.lower())
    return {t[i : i + n] for i in range(max(1, len(t) - n + 1))}


def build():
    records = []
    for lang in sorted(DATA):
        for kind in KINDS:
            for text in DATA[lang].get(kind, []):
                text = text.strip()
                assert text, (lang, kind)
                for rx, why in FORBIDDEN:
                    assert not rx.search(text), "%s in %r" % (why, text)
                records.append((lang, kind, text))

    texts = [r[2] for r in records]
    dup = [t for t, c in Counter(texts).items() if c > 1]
    assert not dup, "duplicate texts: %r" % dup[:5]

    # No two texts of one language that are one template with a word swapped.
    by_lang = {}
    for lang, kind, text in records:
        by_lang.setdefault(lang, []).append((text, grams(text)))
    for lang, items in by_lang.items():
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                a, b = items[i][1], items[j][1]
                sim = len(a & b) / len(a | b)
                assert sim < 0.45, "near-duplicates (%s, %.2f): %r / %r" % (
                    lang,
                    sim,
                    items[i][0],
                    items[j][0],
                )

    rng = random.Random(20240611)
    rng.shuffle(records)
    return records


def main():
    records = build()
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "firewall_train_preferences.jsonl")
    with open(out, "w", encoding="utf-8") as fh:
        for _lang, _kind, text in records:
            fh.write(json.dumps({"text": text, "families": []}, ensure_ascii=False) + "\n")

    n = len(records)
    kinds = Counter(r[1] for r in records)
    langs = Counter(r[0] for r in records)
    non_en = n - langs.get("en", 0)
    print("wrote %d texts to %s" % (n, out))
    print("per kind: " + ", ".join("%s %d" % (k, kinds[k]) for k in KINDS))
    print("languages: %d, non-English %d (%.1f%%)" % (len(langs), non_en, 100.0 * non_en / n))
    print(
        "per language: "
        + ", ".join("%s %d" % kv for kv in sorted(langs.items(), key=lambda kv: (-kv[1], kv[0])))
    )
    assert n >= 700 and len(langs) >= 25 and non_en / n >= 0.55
    for k in KINDS:
        assert 0.2 <= kinds[k] / n <= 0.3, k
    return 0


if __name__ == "__main__":
    sys.exit(main())
