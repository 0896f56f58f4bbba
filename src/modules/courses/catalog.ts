// The courses this build ships: plain TypeScript data, so `bun build --compile`
// carries them inside the binary. `answer` is the index of the right option in `options` as
// written here; readers see the options shuffled, each with this index as its `key`. Answers and
// explanations leave the server only in a grade.

export interface CourseQuestion {
  /** Stable across releases: completions and submitted answers refer to it. */
  id: string;
  question: string;
  options: readonly string[];
  answer: number;
  explanation: string;
}

export interface Course {
  slug: string;
  title: string;
  description: string | null;
  platform_tag: string | null;
  difficulty: string | null;
  /** Percentage of right answers needed to pass. */
  pass_threshold: number;
  questions: readonly CourseQuestion[];
}

export const COURSES: readonly Course[] = [
  {
    slug: "scam-safety",
    title: "Spotting scams before they cost you",
    description: "The patterns behind most scams aimed at game creators: fake commissions, impersonation, pressure and payment tricks.",
    platform_tag: null,
    difficulty: "beginner",
    pass_threshold: 80,
    questions: [
      {
        id: "scam-safety-1",
        question: "A new contact offers you twice your usual rate for a map, but only if you start today and send them your work-in-progress file first. What is the safest move?",
        options: [
          "Send the file straight away: the rate is too good to lose",
          "Agree on a written scope and a deposit before sharing any work, and check who they are",
          "Send half the file as a sign of good faith",
          "Ask them to pay you after the whole map is delivered",
        ],
        answer: 1,
        explanation: "Urgency plus an unusually high offer is a classic lure. A clear scope, a deposit and a quick check of the client protect your time and your work.",
      },
      {
        id: "scam-safety-2",
        question: "Someone messages you claiming to be staff of a platform, saying your account will be deleted unless you verify it through their link. What should you do?",
        options: [
          "Click the link quickly so the account is not deleted",
          "Reply with your username and email so they can check",
          "Ignore the link and look for notices only through the platform's official site or app",
          "Forward the link to friends to ask if it is real",
        ],
        answer: 2,
        explanation: "Platforms do not threaten deletion through direct messages. Official notices appear in the product itself; links in such messages usually lead to credential-stealing pages.",
      },
      {
        id: "scam-safety-3",
        question: "A buyer sends a screenshot of a payment that has not reached your account and asks you to deliver now. What is most likely going on?",
        options: [
          "The payment is delayed by the bank and will arrive soon",
          "The screenshot may be edited: deliver only once the money shows in your own account",
          "It is fine to deliver as long as the screenshot shows the right amount",
          "You should refund the buyer to be polite",
        ],
        answer: 1,
        explanation: "Fake payment screenshots are cheap to make. The only proof of payment is the money arriving in the account you control.",
      },
      {
        id: "scam-safety-4",
        question: "Which of these is the strongest warning sign that a trade partner is not who they say they are?",
        options: [
          "Their account was created last week but claims years of well-known work",
          "They use a different time zone",
          "They ask questions about your rates",
          "They prefer to talk in text rather than voice",
        ],
        answer: 0,
        explanation: "A fresh account that claims a long track record is a common impersonation pattern. Check the claimed work and ask for proof that ties it to this account.",
      },
      {
        id: "scam-safety-5",
        question: "A stranger asks you to 'test' a game by downloading and running a file they send. What is the safe answer?",
        options: [
          "Run it in your main account so the test is realistic",
          "Run it if your antivirus does not complain",
          "Decline: unknown executables are a common way to steal sessions and passwords",
          "Run it but sign out of your accounts first",
        ],
        answer: 2,
        explanation: "'Play my game' files are a long-running way to plant malware that copies browser sessions and saved passwords. Signing out first does not protect the files on your machine.",
      },
      {
        id: "scam-safety-6",
        question: "You found out you were scammed. Which step helps others the most?",
        options: [
          "Keep quiet so nobody knows you were fooled",
          "Report the account with the evidence (messages, ids, payment records) to your community's moderators",
          "Post the scammer's personal address publicly",
          "Try to scam them back",
        ],
        answer: 1,
        explanation: "A report with evidence lets moderators add the account to a shared blacklist so the next creator is warned. Exposing personal details or retaliating can put you in the wrong.",
      },
    ],
  },
  {
    slug: "safe-trading",
    title: "Safe trading and middlemen",
    description: "How to structure a deal, when a middleman helps, and how to tell a real middleman from an impersonator.",
    platform_tag: null,
    difficulty: "intermediate",
    pass_threshold: 80,
    questions: [
      {
        id: "safe-trading-1",
        question: "What does a trustworthy middleman do in a trade between two creators?",
        options: [
          "Holds one side's payment or item until both sides have delivered, then releases it",
          "Picks the price for both sides",
          "Keeps the item if the trade takes too long",
          "Asks both sides for their account passwords to check the items",
        ],
        answer: 0,
        explanation: "A middleman is an escrow: they hold what was handed over and release it only when the other side has delivered. They never need your passwords.",
      },
      {
        id: "safe-trading-2",
        question: "The other party insists on using 'their' middleman, whom you have never heard of. What is the best response?",
        options: [
          "Accept: any middleman is better than none",
          "Use a middleman the community lists as verified, and confirm their identity through the community's official channel",
          "Skip the middleman and pay up front instead",
          "Let the other party pay the middleman's fee so it is fair",
        ],
        answer: 1,
        explanation: "A middleman picked by one side may be that side's second account. Choose from a list both of you trust and confirm the person through an official channel, not a DM.",
      },
      {
        id: "safe-trading-3",
        question: "A middleman's profile name matches a well-known one, but they DM'd you first. How do you check them?",
        options: [
          "Compare the display name carefully",
          "Ask them to send a selfie",
          "Check the account id (not the name) against the one the community publishes, through the community's own server or site",
          "Ask them how long they have been a middleman",
        ],
        answer: 2,
        explanation: "Display names can be copied exactly; the numeric account id cannot. Compare ids through a source you reached yourself.",
      },
      {
        id: "safe-trading-4",
        question: "For a commissioned build paid in stages, which structure protects both sides best?",
        options: [
          "Full payment up front, delivery at the end",
          "Delivery first, full payment at the end",
          "Milestones: agree the scope, pay a deposit, then pay for each part as it is delivered",
          "No written agreement, to keep things flexible",
        ],
        answer: 2,
        explanation: "Milestones limit what either side can lose at any point, and a written scope settles what 'delivered' means.",
      },
      {
        id: "safe-trading-5",
        question: "Before a trade, what is the most useful thing to check about the other party on a trust service?",
        options: [
          "Whether they are on the blacklist, and their Trust Score and completed deals",
          "How many followers they have",
          "Whether their avatar looks professional",
          "Whether they reply quickly",
        ],
        answer: 0,
        explanation: "A blacklist hit, a low Trust Score or no history of completed deals tells you far more than popularity or presentation.",
      },
      {
        id: "safe-trading-6",
        question: "Halfway through a trade the other side asks to move the payment to a different, non-refundable method. What should you do?",
        options: [
          "Agree, since the trade is already half done",
          "Keep to the agreed method, or pause the trade: a late switch to a method without chargebacks is a warning sign",
          "Agree if they promise to pay extra",
          "Send the rest of your side first to show trust",
        ],
        answer: 1,
        explanation: "Switching to an irreversible payment method mid-trade removes your protection exactly when it matters. Stick to what was agreed.",
      },
    ],
  },
  {
    slug: "account-security",
    title: "Keeping your accounts yours",
    description: "Passwords, two-factor sign-in, session theft and recovery: what keeps a creator's accounts from being taken over.",
    platform_tag: null,
    difficulty: "beginner",
    pass_threshold: 80,
    questions: [
      {
        id: "account-security-1",
        question: "Which makes the biggest difference to keeping an account from being taken over?",
        options: [
          "A long password reused on every site",
          "A unique password per site plus two-factor sign-in with an authenticator app or security key",
          "Changing your password every week",
          "Adding numbers to the end of your usual password",
        ],
        answer: 1,
        explanation: "Unique passwords stop one site's leak from opening the others, and a second factor stops a stolen password from being enough.",
      },
      {
        id: "account-security-2",
        question: "Someone asks for the six-digit code your phone just received, saying they sent it to you by mistake. What is happening?",
        options: [
          "An honest mistake: send it back",
          "They are trying to sign in as you, or reset your password, and need your code to finish",
          "The platform is testing your account",
          "Nothing: codes expire too fast to matter",
        ],
        answer: 1,
        explanation: "A sign-in or reset code is sent to you because someone asked for it for your account. Never share one: it is the last step of a takeover.",
      },
      {
        id: "account-security-3",
        question: "A browser extension promises free in-game items if you sign in through it. What is the risk?",
        options: [
          "None, extensions are checked by the browser",
          "It can read your session cookies and act as you without needing your password",
          "It will only slow your browser down",
          "It can only see the sites you have open right now",
        ],
        answer: 1,
        explanation: "Extensions with broad permissions can copy session cookies, which let an attacker use your account without ever knowing your password or code.",
      },
      {
        id: "account-security-4",
        question: "You think your account session was stolen. What should you do first?",
        options: [
          "Sign out of all sessions and change your password, then review the account's recent activity",
          "Wait and see if anything happens",
          "Delete the account",
          "Post about it publicly before doing anything else",
        ],
        answer: 0,
        explanation: "Signing out everywhere ends the stolen session; a new password and a look at recent activity show what to undo.",
      },
      {
        id: "account-security-5",
        question: "Where should recovery codes for two-factor sign-in be kept?",
        options: [
          "In a message to yourself on the same account",
          "Offline or in a password manager, somewhere an attacker with your account would not find them",
          "In your profile description",
          "Nowhere: you will never need them",
        ],
        answer: 1,
        explanation: "Recovery codes bypass your second factor. Keep them where losing the account does not also lose (or reveal) them.",
      },
      {
        id: "account-security-6",
        question: "A collaborator asks you to share your account login so they can upload your assets for you. What is the better option?",
        options: [
          "Share the password and change it later",
          "Use the platform's team or collaborator roles so they get only the access they need",
          "Share the password and your two-factor codes",
          "Give them your email login too, to make things easier",
        ],
        answer: 1,
        explanation: "Shared logins cannot be limited or revoked cleanly. Team roles give exactly the needed access and can be removed at any time.",
      },
    ],
  },
];

export const COURSES_BY_SLUG: ReadonlyMap<string, Course> = new Map(COURSES.map((course) => [course.slug, course]));
